// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_driver.hpp"

#include <dlfcn.h>

namespace ef::gst::cuda {

namespace {

struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string why;
};

// Each entry point by its name in libcuda.so.1: the versioned names where
// cuda.h's #defines pick one (the _v2 ABI of 64-bit sizes and pointers).
template <typename F>
bool find(void *lib, const char *name, F &fn, std::string &why) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn)
    why = std::string("libcuda.so.1 has no ") + name;
  return fn != nullptr;
}

Loaded load() {
  Loaded l;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    l.why = std::string("the NVIDIA driver's libcuda.so.1 could not be loaded: ") +
            (e ? e : "not found");
    return l;
  }
  Driver &d = l.driver;
  std::string &w = l.why;
  const bool found =
      find(lib, "cuInit", d.Init, w) && find(lib, "cuGetErrorName", d.GetErrorName, w) &&
      find(lib, "cuPointerGetAttribute", d.PointerGetAttribute, w) &&
      find(lib, "cuCtxPushCurrent_v2", d.CtxPushCurrent, w) &&
      find(lib, "cuCtxPopCurrent_v2", d.CtxPopCurrent, w) &&
      find(lib, "cuCtxSynchronize", d.CtxSynchronize, w) &&
      find(lib, "cuModuleLoadData", d.ModuleLoadData, w) &&
      find(lib, "cuModuleUnload", d.ModuleUnload, w) &&
      find(lib, "cuModuleGetFunction", d.ModuleGetFunction, w) &&
      find(lib, "cuLaunchKernel", d.LaunchKernel, w) && find(lib, "cuMemAlloc_v2", d.MemAlloc, w) &&
      find(lib, "cuMemFree_v2", d.MemFree, w) &&
      find(lib, "cuMemAllocHost_v2", d.MemAllocHost, w) &&
      find(lib, "cuMemFreeHost", d.MemFreeHost, w) &&
      find(lib, "cuMemcpy2DAsync_v2", d.Memcpy2DAsync, w) &&
      find(lib, "cuStreamCreate", d.StreamCreate, w) &&
      find(lib, "cuStreamDestroy_v2", d.StreamDestroy, w) &&
      find(lib, "cuEventCreate", d.EventCreate, w) &&
      find(lib, "cuEventDestroy_v2", d.EventDestroy, w) &&
      find(lib, "cuEventRecord", d.EventRecord, w) &&
      find(lib, "cuEventSynchronize", d.EventSynchronize, w);
  if (!found)
    return l;  // the library stays loaded: a process loads it once
  // Optional: GL interop, for GL-memory outputs only.
  std::string optional;
  if (!(find(lib, "cuGraphicsGLRegisterImage", d.GraphicsGLRegisterImage, optional) &&
        find(lib, "cuGraphicsUnregisterResource", d.GraphicsUnregisterResource, optional) &&
        find(lib, "cuGraphicsMapResources", d.GraphicsMapResources, optional) &&
        find(lib, "cuGraphicsUnmapResources", d.GraphicsUnmapResources, optional) &&
        find(lib, "cuGraphicsSubResourceGetMappedArray", d.GraphicsSubResourceGetMappedArray,
             optional)))
    d.GraphicsGLRegisterImage = nullptr;
  if (const CUresult r = d.Init(0); r != CUDA_SUCCESS) {
    w = d.describe("cuInit", r);
    return l;
  }
  l.ok = true;
  return l;
}

}  // namespace

std::string Driver::describe(const char *call, CUresult r) const {
  const char *name = nullptr;
  if (GetErrorName)
    GetErrorName(r, &name);
  return std::string(call) + ": " + (name ? name : "CUDA error") + " (" + std::to_string(r) + ")";
}

const Driver *driver(std::string *why) {
  static const Loaded loaded = load();
  if (why)
    *why = loaded.why;
  return loaded.ok ? &loaded.driver : nullptr;
}

}  // namespace ef::gst::cuda
