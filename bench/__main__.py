import sys

if sys.argv[1:2] == ["judge"]:
    from bench.judge import main as judge_main

    judge_main(sys.argv[2:])
elif sys.argv[1:2] == ["docs"]:
    from bench.docs import main as docs_main

    docs_main(sys.argv[2:])
elif sys.argv[1:2] == ["cluster"]:
    from bench.cluster import main as cluster_main

    cluster_main(sys.argv[2:])
elif sys.argv[1:2] == ["drafts"]:
    from bench.drafts import main as drafts_main

    drafts_main(sys.argv[2:])
elif sys.argv[1:2] == ["claims-model"]:
    from bench.claims_model import main as claims_model_main

    claims_model_main(sys.argv[2:])
elif sys.argv[1:2] == ["claims"]:
    from bench.claims import main as claims_main

    claims_main(sys.argv[2:])
elif sys.argv[1:2] == ["soak"]:
    from bench.soak import main as soak_main

    soak_main(sys.argv[2:])
elif sys.argv[1:2] == ["pages"]:
    from bench.pages import main as pages_main

    pages_main(sys.argv[2:])
elif sys.argv[1:2] == ["expect"]:
    from bench.expectations import main as expect_main

    sys.exit(expect_main(sys.argv[2:]))
elif sys.argv[1:2] == ["decode"]:
    from bench.decode import main as decode_main

    decode_main(sys.argv[2:])
elif sys.argv[1:2] == ["units"]:
    from bench.units import main as units_main

    units_main(sys.argv[2:])
elif sys.argv[1:2] == ["pasted"]:
    from bench.pasted import main as pasted_main

    sys.exit(pasted_main(sys.argv[2:]))
elif sys.argv[1:2] == ["invent"]:
    from bench.invent import main as invent_main

    sys.exit(invent_main(sys.argv[2:]))
elif sys.argv[1:2] == ["additions-model"]:
    from bench.additions_model import main as additions_model_main

    sys.exit(additions_model_main(sys.argv[2:]))
elif sys.argv[1:2] == ["acts"]:
    from bench.acts import main as acts_main

    sys.exit(acts_main(sys.argv[2:]))
elif sys.argv[1:2] == ["notes"]:
    from bench.notes import main as notes_main

    sys.exit(notes_main(sys.argv[2:]))
elif sys.argv[1:2] == ["additions"]:
    from bench.additions import main as additions_main

    sys.exit(additions_main(sys.argv[2:]))
elif sys.argv[1:2] == ["shapes"]:
    from bench.shapes import main as shapes_main

    sys.exit(shapes_main(sys.argv[2:]))
elif sys.argv[1:2] == ["review-path"]:
    from bench.review_path import main as review_path_main

    review_path_main(sys.argv[2:])
elif sys.argv[1:2] == ["reading-model"]:
    from bench.reading_model import main as reading_model_main

    sys.exit(reading_model_main(sys.argv[2:]))
elif sys.argv[1:2] == ["unseen"]:
    from bench.unseen import main as unseen_main

    sys.exit(unseen_main(sys.argv[2:]))
elif sys.argv[1:2] == ["fixes"]:
    from bench.fixes import main as fixes_main

    sys.exit(fixes_main(sys.argv[2:]))
elif sys.argv[1:2] == ["loop"]:
    from bench.loop import main as loop_main

    loop_main(sys.argv[2:])
else:
    from bench.run import main

    main()
