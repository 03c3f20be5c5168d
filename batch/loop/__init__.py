"""The writer–critic loop: the LangGraph graph, its nodes, the pure routing between
them, the answers asked of the models, the repairs by findings, and the pause for a
person.

    graph.py      the graph: writer, critic, review, finish, over a checkpointer
    nodes.py      the nodes: draft or repair, judge (the code checks, then the critic),
                  pause for a person, finish
    checking.py   the code checks of the state: what they are given, what they find,
                  and the one validator of a person's edited text
    verdict.py    the score, the must_fix and the verdict, computed by code
    decisions.py  a person's answer applied to the state (approve, reject, send back)
    routing.py    where the loop goes next and why it stopped, pure and typed
    repairs.py    one small local change per finding, kept only when the checks find less
    docwriter.py  API docs of a Python file, one public name at a time
    answers.py    the structured answers asked of the models (JSON schemas)
    inbox.py      the Agent Inbox protocol: what a person is shown, what they answer
"""
