// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA driver API, loaded at run time from the NVIDIA driver's
// libcuda.so.1, as GStreamer's own CUDA library loads it: nothing to build
// against (Debian's GstCuda headers need the toolkit's cuda.h, which is
// not in main), nothing to install where there is no NVIDIA GPU. Only the
// calls the CUDA backend makes, with the driver's own types and the ABI of
// its headers (cuda.h, CUDA 12 and 13).
#pragma once

#include <cstddef>
#include <string>

namespace ef::gst::cuda {

using CUresult = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraphicsResource = struct CUgraphicsResource_st *;
using CUarray = struct CUarray_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr int CU_POINTER_ATTRIBUTE_CONTEXT = 1;
inline constexpr int CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_ARRAY = 3;
// cuGraphicsGLRegisterImage: CUDA only writes, whatever was there is dropped.
inline constexpr unsigned CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 2;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
// The waiting thread sleeps rather than spins (CU_EVENT_BLOCKING_SYNC), and
// the event keeps no time (CU_EVENT_DISABLE_TIMING).
inline constexpr unsigned CU_EVENT_BLOCKING_SYNC = 1, CU_EVENT_DISABLE_TIMING = 2;

struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};

struct Driver {
  CUresult (*Init)(unsigned);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr);
  CUresult (*CtxPushCurrent)(CUcontext);
  CUresult (*CtxPopCurrent)(CUcontext *);
  CUresult (*CtxSynchronize)();
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemAllocHost)(void **, size_t);
  CUresult (*MemFreeHost)(void *);
  CUresult (*Memcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);

  // CUDA-GL interop (textures a CUDA kernel's output is copied into): null
  // where the driver has none, which only GL-memory outputs need.
  CUresult (*GraphicsGLRegisterImage)(CUgraphicsResource *, unsigned, unsigned, unsigned);
  CUresult (*GraphicsUnregisterResource)(CUgraphicsResource);
  CUresult (*GraphicsMapResources)(unsigned, CUgraphicsResource *, CUstream);
  CUresult (*GraphicsUnmapResources)(unsigned, CUgraphicsResource *, CUstream);
  CUresult (*GraphicsSubResourceGetMappedArray)(CUarray *, CUgraphicsResource, unsigned, unsigned);
  bool gl_interop() const { return GraphicsGLRegisterImage != nullptr; }

  // "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)" for a failed call.
  std::string describe(const char *call, CUresult r) const;
};

// The driver, loaded and initialised once a process; nullptr where it
// cannot be, with `why` saying why (no libcuda.so.1, a symbol missing,
// cuInit failing: no NVIDIA GPU).
const Driver *driver(std::string *why = nullptr);

}  // namespace ef::gst::cuda
