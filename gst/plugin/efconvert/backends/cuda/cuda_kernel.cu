// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's kernel: one thread an output pixel, the arithmetic in
// cuda_pass.hpp. Compiled to PTX by clang at build time (no CUDA toolkit:
// -nocudainc, the builtins below) and loaded by the driver, which compiles
// it for the GPU at hand.
#include "cuda_pass.hpp"

extern "C" __attribute__((global)) void ef_cuda_convert(ef::gst::cuda::Pass pass) {
  const int x = int(__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
                    __nvvm_read_ptx_sreg_tid_x());
  const int y = int(__nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() +
                    __nvvm_read_ptx_sreg_tid_y());
  if (x < pass.out_w && y < pass.out_h)
    ef::gst::cuda::write_pixel(pass, x, y);
}
