#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Wraps the kernel's PTX (text) in a C++ source: ef::gst::kEfCudaPtx, the
# string cuModuleLoadData takes.
import sys

ptx_path, out_path = sys.argv[1], sys.argv[2]
with open(ptx_path, encoding="ascii") as f:
    ptx = f.read()
delimiter = "ef_ptx"
assert ")" + delimiter + '"' not in ptx
with open(out_path, "w", encoding="ascii") as f:
    f.write("// Generated from cuda_kernel.cu by embed_ptx.py: do not edit.\n")
    f.write("namespace ef::gst {\n")
    f.write("extern const char kEfCudaPtx[];\n")
    f.write('const char kEfCudaPtx[] = R"' + delimiter + "(" + ptx + ")" + delimiter + '";\n')
    f.write("}  // namespace ef::gst\n")
