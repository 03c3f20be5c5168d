"""The llama.cpp that `make setup` builds runs on this CPU."""

from __future__ import annotations


def test_llama_cpp_is_built_without_the_amx_kernels_that_crash():
    # On an Intel Xeon with AMX, -march=native turned on llama.cpp's AMX kernels, and
    # the first matrix multiply of every run crashed the process (ggml-org/llama.cpp
    # #20824). The Makefile builds it with them off.
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert "AMX_INT8 = 1" not in info, info
