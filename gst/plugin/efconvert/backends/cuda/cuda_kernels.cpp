// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_kernels.hpp"

#include <map>
#include <mutex>

namespace ef::gst::cuda {

namespace {

struct Loaded {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  unsigned users = 0;
};

std::mutex &lock() {
  static std::mutex m;
  return m;
}

std::map<CUcontext, Loaded> &loaded() {
  static std::map<CUcontext, Loaded> m;
  return m;
}

}  // namespace

Result<CUfunction> acquire_kernel(const Driver &d, CUcontext context) {
  std::lock_guard guard(lock());
  Loaded &k = loaded()[context];
  if (!k.module) {
    if (CUresult r = d.ModuleLoadData(&k.module, kEfCudaPtx); r != CUDA_SUCCESS) {
      loaded().erase(context);
      return Error{EIO, "the CUDA kernel did not load: " + d.describe("cuModuleLoadData", r)};
    }
    if (CUresult r = d.ModuleGetFunction(&k.function, k.module, "ef_cuda_convert");
        r != CUDA_SUCCESS) {
      d.ModuleUnload(k.module);
      loaded().erase(context);
      return Error{EIO, d.describe("cuModuleGetFunction", r)};
    }
  }
  ++k.users;
  return k.function;
}

void release_kernel(const Driver &d, CUcontext context) {
  std::lock_guard guard(lock());
  auto it = loaded().find(context);
  if (it == loaded().end() || --it->second.users > 0)
    return;
  d.ModuleUnload(it->second.module);
  loaded().erase(it);
}

}  // namespace ef::gst::cuda
