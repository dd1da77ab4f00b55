# SPDX-License-Identifier: LGPL-2.1-or-later
"""Quiets a known complaint of Debian's ONNX packages.

Debian's libonnxruntime and libonnx each register ONNX's operator schemas;
a process that loads both (GStreamer's onnx plugin links both) prints about
a thousand "Schema error: Trying to register schema ..." lines on stderr,
harmlessly. quiet_onnx_schema_errors() routes stderr through a thread that
drops those lines and passes everything else on.
"""
import atexit
import os
import threading


def quiet_onnx_schema_errors():
    read_fd, write_fd = os.pipe()
    saved = os.dup(2)
    os.dup2(write_fd, 2)
    os.close(write_fd)

    def pump():
        with os.fdopen(read_fd, "rb") as pipe:
            for line in pipe:
                if line.startswith(b"Schema error") or not line.strip():
                    continue
                os.write(saved, line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()

    def restore():
        os.dup2(saved, 2)  # closes the pipe's last writer: the pump ends
        thread.join(timeout=2)

    atexit.register(restore)
