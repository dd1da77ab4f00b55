/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NVDEC -> efconvert -> a CUDA tensor -> a user's CUDA kernel, no host copy.
 *
 *   videotestsrc ! nvh264enc ! h264parse ! nvh264dec ! efconvert
 *     ! other/tensors(memory:CUDAMemory),types=uint8,dimensions=224:224:3:1 ! appsink
 *
 * Each tensor becomes a DLManagedTensor (GstEfTensorView, libgstef-1.0)
 * whose device pointer goes straight into a kernel of the application's
 * (a byte checksum, PTX below, loaded through the CUDA driver API opened at
 * run time: nothing CUDA is needed to build this), launched on the
 * application's own stream after ef's (an event on the stream the view
 * names, cuStreamWaitEvent). The DLPack deleter releases the buffer once
 * the kernel is done with it.
 *
 *   cuda_tensor            the CUDA run; SKIP (exit 77) without an NVIDIA GPU
 *   cuda_tensor --cpu      the same consumer on a tensor in host memory
 *
 * --check (with either): the kernel's checksum against the host's of a copy
 * made for the check alone (cuMemcpyDtoH), exit 1 on a mismatch. */
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <gst/app/gstappsink.h>
#include <gst/ef/gstef.h>
#include <gst/gst.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SKIP 77

/* sum of the n bytes at p into *out: one thread a byte, atomics. */
static const char kChecksumPtx[] =
    ".version 6.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry checksum(.param .u64 p, .param .u32 n, .param .u64 out)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvt.u64.u32 %rd4, %r5;\n  add.s64 %rd5, %rd3, %rd4;\n"
    "  ld.global.u8 %r6, [%rd5];\n  cvt.u64.u32 %rd6, %r6;\n  cvta.to.global.u64 %rd7, %rd2;\n"
    "  atom.global.add.u64 %rd6, [%rd7], %rd6;\nDONE:\n  ret;\n}\n";

/* The CUDA driver calls used (cuda.h's prototypes, handles as pointers),
 * opened at run time. */
static struct {
  int (*Init)(unsigned);
  int (*DeviceGet)(int *, int);
  int (*DevicePrimaryCtxRetain)(void **, int);
  int (*CtxPushCurrent)(void *);
  int (*CtxPopCurrent)(void **);
  int (*ModuleLoadData)(void **, const void *);
  int (*ModuleGetFunction)(void **, void *, const char *);
  int (*MemAlloc)(uint64_t *, size_t);
  int (*MemsetD8)(uint64_t, unsigned char, size_t);
  int (*MemcpyDtoH)(void *, uint64_t, size_t);
  int (*StreamCreate)(void **, unsigned);
  int (*StreamGetCtx)(void *, void **);
  int (*EventCreate)(void **, unsigned);
  int (*EventRecord)(void *, void *);
  int (*EventDestroy)(void *);
  int (*StreamWaitEvent)(void *, void *, unsigned);
  int (*StreamSynchronize)(void *);
  int (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      void *, void **, void **);
} cu;

static gboolean open_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib)
    return FALSE;
#define SYM(field, name)                           \
  do {                                             \
    if (!(*(void **)&cu.field = dlsym(lib, name))) \
      return FALSE;                                \
  } while (0)
  SYM(Init, "cuInit");
  SYM(DeviceGet, "cuDeviceGet");
  SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM(CtxPushCurrent, "cuCtxPushCurrent_v2");
  SYM(CtxPopCurrent, "cuCtxPopCurrent_v2");
  SYM(ModuleLoadData, "cuModuleLoadData");
  SYM(ModuleGetFunction, "cuModuleGetFunction");
  SYM(MemAlloc, "cuMemAlloc_v2");
  SYM(MemsetD8, "cuMemsetD8_v2");
  SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
  SYM(StreamCreate, "cuStreamCreate");
  SYM(StreamGetCtx, "cuStreamGetCtx");
  SYM(EventCreate, "cuEventCreate");
  SYM(EventRecord, "cuEventRecord");
  SYM(EventDestroy, "cuEventDestroy_v2");
  SYM(StreamWaitEvent, "cuStreamWaitEvent");
  SYM(StreamSynchronize, "cuStreamSynchronize");
  SYM(LaunchKernel, "cuLaunchKernel");
#undef SYM
  return cu.Init(0) == 0;
}

#define CU(call)                                                \
  do {                                                          \
    int r_ = (call);                                            \
    if (r_ != 0) {                                              \
      fprintf(stderr, "%s failed: CUDA error %d\n", #call, r_); \
      return FALSE;                                             \
    }                                                           \
  } while (0)

typedef struct {
  void *context, *stream, *function;
  uint64_t sum; /* device address of the kernel's sum */
} Consumer;

static gboolean consumer_init(Consumer *c, int device_id) {
  int device = 0;
  void *module = NULL;
  CU(cu.DeviceGet(&device, device_id));
  CU(cu.DevicePrimaryCtxRetain(&c->context, device));
  CU(cu.CtxPushCurrent(c->context));
  CU(cu.ModuleLoadData(&module, kChecksumPtx));
  CU(cu.ModuleGetFunction(&c->function, module, "checksum"));
  CU(cu.StreamCreate(&c->stream, 1 /* CU_STREAM_NON_BLOCKING */));
  CU(cu.MemAlloc(&c->sum, sizeof(uint64_t)));
  return TRUE;
}

/* The consumer's stream waits on the GPU for ef's (where ef names one). */
static gboolean wait_for_ef(Consumer *c, guint64 ef_stream) {
  void *ef_context = NULL, *popped = NULL, *event = NULL;
  if (!ef_stream)
    return TRUE;
  CU(cu.StreamGetCtx((void *)(uintptr_t)ef_stream, &ef_context));
  CU(cu.CtxPushCurrent(ef_context));
  CU(cu.EventCreate(&event, 2 /* CU_EVENT_DISABLE_TIMING */));
  CU(cu.EventRecord(event, (void *)(uintptr_t)ef_stream));
  CU(cu.CtxPopCurrent(&popped));
  CU(cu.StreamWaitEvent(c->stream, event, 0));
  CU(cu.EventDestroy(event));
  return TRUE;
}

/* The kernel's checksum of the tensor's bytes, read where they lie. */
static gboolean device_checksum(Consumer *c, guint64 ef_stream, const DLTensor *t, size_t bytes,
                                uint64_t *sum) {
  uint64_t data = (uint64_t)(uintptr_t)t->data;
  unsigned n = (unsigned)bytes;
  void *args[] = {&data, &n, &c->sum};
  CU(cu.MemsetD8(c->sum, 0, sizeof *sum));
  if (!wait_for_ef(c, ef_stream))
    return FALSE;
  CU(cu.LaunchKernel(c->function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, c->stream, args, NULL));
  CU(cu.StreamSynchronize(c->stream));
  CU(cu.MemcpyDtoH(sum, c->sum, sizeof *sum));
  return TRUE;
}

/* The host's checksum of the same bytes (a copy, for --check only). */
static gboolean host_checksum(const DLTensor *t, size_t bytes, uint64_t *sum) {
  guint8 *copy = g_malloc(bytes);
  const guint8 *p = t->data;
  if (t->device.device_type == kDLCUDA) {
    int r = cu.MemcpyDtoH(copy, (uint64_t)(uintptr_t)t->data, bytes);
    if (r != 0) {
      fprintf(stderr, "cuMemcpyDtoH failed: CUDA error %d\n", r);
      g_free(copy);
      return FALSE;
    }
    p = copy;
  }
  *sum = 0;
  for (size_t i = 0; i < bytes; ++i)
    *sum += p[i];
  g_free(copy);
  return TRUE;
}

static size_t tensor_bytes(const DLTensor *t) {
  size_t n = t->dtype.bits / 8;
  for (int i = 0; i < t->ndim; ++i)
    n *= (size_t)t->shape[i];
  return n;
}

int main(int argc, char **argv) {
  gboolean cpu = FALSE, check = FALSE;
  for (int i = 1; i < argc; ++i) {
    cpu |= strcmp(argv[i], "--cpu") == 0;
    check |= strcmp(argv[i], "--check") == 0;
  }
  gst_init(NULL, NULL);
  if (!cpu && !gst_element_factory_find("nvh264dec")) {
    printf("SKIP: no nvh264dec (GStreamer's nvcodec plugin found no NVIDIA GPU or driver)\n");
    return SKIP;
  }
  if (!cpu && !open_driver()) {
    printf("SKIP: no CUDA driver (libcuda.so.1) or no device\n");
    return SKIP;
  }
  const char *line =
      cpu ? "videotestsrc num-buffers=4 ! efconvert "
            "! other/tensors,types=uint8,dimensions=(string)224:224:3:1 ! appsink name=out"
          : "videotestsrc num-buffers=4 ! video/x-raw,width=1280,height=720 ! nvh264enc "
            "! h264parse ! nvh264dec ! efconvert "
            "! other/tensors(memory:CUDAMemory),types=uint8,dimensions=(string)224:224:3:1 "
            "! appsink name=out";
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch(line, &error);
  if (!pipeline) {
    fprintf(stderr, "%s\n", error->message);
    return 1;
  }
  GstAppSink *sink = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "out"));
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  Consumer consumer = {0};
  gboolean consumer_ready = FALSE;
  int frames = 0, status = 0;
  GstSample *sample;
  while (status == 0 && (sample = gst_app_sink_pull_sample(sink))) {
    GstEfTensorView *view =
        gst_ef_tensor_view_new(gst_sample_get_buffer(sample), gst_sample_get_caps(sample), &error);
    if (!view) {
      fprintf(stderr, "not a tensor: %s\n", error->message);
      status = 1;
    } else {
      DLManagedTensor *dl = gst_ef_tensor_view_to_dlpack(view);
      const guint64 ef_stream = gst_ef_tensor_view_get_cuda_stream(view);
      gst_ef_tensor_view_unref(view); /* the DLPack tensor holds it now */
      const DLTensor *t = &dl->dl_tensor;
      const size_t bytes = tensor_bytes(t);
      uint64_t host = 0, device = 0;
      if (t->device.device_type != (cpu ? kDLCPU : kDLCUDA)) {
        fprintf(stderr, "efconvert's tensor is on device type %d\n", t->device.device_type);
        status = 1;
      } else if (cpu) {
        /* The consumer in host memory: the checksum where the bytes lie. */
        host_checksum(t, bytes, &device);
        host = device;
      } else {
        if (!consumer_ready && !(consumer_ready = consumer_init(&consumer, t->device.device_id)))
          status = 1;
        if (status == 0 && !device_checksum(&consumer, ef_stream, t, bytes, &device))
          status = 1;
        if (status == 0 && check && !host_checksum(t, bytes, &host))
          status = 1;
      }
      if (status == 0 && check && host != device) {
        fprintf(stderr, "frame %d: the kernel's checksum %llu, the host's %llu\n", frames,
                (unsigned long long)device, (unsigned long long)host);
        status = 1;
      }
      dl->deleter(dl); /* the buffer goes back to its pool */
      ++frames;
    }
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (status == 0 && frames == 0) {
    fprintf(stderr, "no frames\n");
    status = 1;
  }
  if (status == 0)
    printf("%d %s tensors into the consumer without a copy\n", frames, cpu ? "CPU" : "CUDA");
  return status;
}
