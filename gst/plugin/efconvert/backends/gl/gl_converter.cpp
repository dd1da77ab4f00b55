// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_converter.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gl_layout.hpp"
#include "gl_shaders.hpp"
#include "gl_tensor_words.hpp"
#include "efconvert/tensors/tensor_values.hpp"
#include "gl_texture_storage.hpp"
#include "common/gst_ptr.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// `fn` = the context's `name`; false where it has none.
template <typename Fn>
bool gl_proc(GstGLContext *context, Fn &fn, const char *name) {
  fn = reinterpret_cast<Fn>(gst_gl_context_get_proc_address(context, name));
  return fn != nullptr;
}

// Sampler objects (GL 3.3, GLES 3.0) are not in GstGLFuncs. One sampler
// sets GL_LINEAR and clamp-to-edge for our draws without touching the
// parameters of textures that belong to someone else.
struct SamplerFuncs {
  void(GSTGLAPI *gen)(GLsizei, GLuint *) = nullptr;
  void(GSTGLAPI *destroy)(GLsizei, const GLuint *) = nullptr;
  void(GSTGLAPI *bind)(GLuint, GLuint) = nullptr;
  void(GSTGLAPI *parameter)(GLuint, GLenum, GLint) = nullptr;

  bool load(GstGLContext *context) {
    return gl_proc(context, gen, "glGenSamplers") &&
           gl_proc(context, destroy, "glDeleteSamplers") &&
           gl_proc(context, bind, "glBindSampler") &&
           gl_proc(context, parameter, "glSamplerParameteri");
  }
};

// Compute shaders and image stores (GL 4.3, GLES 3.1), not in GstGLFuncs
// either; with TexParameteri's query of immutability on GLES.
struct ComputeFuncs {
  void(GSTGLAPI *dispatch)(GLuint, GLuint, GLuint) = nullptr;
  void(GSTGLAPI *bind_image)(GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum) = nullptr;
  void(GSTGLAPI *barrier)(GLbitfield) = nullptr;
  // Optional: glCopyImageSubData (GL 4.3, GLES 3.2), for targets GLES does
  // not store into (computed into a texture of ours, then copied, on the
  // GPU).
  void(GSTGLAPI *copy_image)(GLuint, GLenum, GLint, GLint, GLint, GLint, GLuint, GLenum, GLint,
                             GLint, GLint, GLint, GLsizei, GLsizei, GLsizei) = nullptr;
  // Shader storage bindings (GL 3.0, GLES 3.0), for tensors.
  void(GSTGLAPI *bind_range)(GLenum, GLuint, GLuint, GLintptr, GLsizeiptr) = nullptr;
  void(GSTGLAPI *bind_base)(GLenum, GLuint, GLuint) = nullptr;
  // Optional: glGetIntegeri_v (GL 3.0, GLES 3.0), for the work group limit.
  void(GSTGLAPI *get_indexed)(GLenum, GLuint, GLint *) = nullptr;

  bool load(GstGLContext *context) {
    gl_proc(context, copy_image, "glCopyImageSubData") ||
        gl_proc(context, copy_image, "glCopyImageSubDataEXT");
    gl_proc(context, get_indexed, "glGetIntegeri_v");
    return gl_proc(context, dispatch, "glDispatchCompute") &&
           gl_proc(context, bind_image, "glBindImageTexture") &&
           gl_proc(context, barrier, "glMemoryBarrier") &&
           gl_proc(context, bind_range, "glBindBufferRange") &&
           gl_proc(context, bind_base, "glBindBufferBase");
  }
};

#ifndef GL_MAX_COMPUTE_WORK_GROUP_COUNT
#define GL_MAX_COMPUTE_WORK_GROUP_COUNT 0x91BE
#endif

// The context's GL_MAX_COMPUTE_WORK_GROUP_COUNT along x and y; GL's
// guaranteed minimum where it cannot be asked.
gl::GroupLimit work_group_limit(const ComputeFuncs &compute) {
  gl::GroupLimit limit;
  if (!compute.get_indexed)
    return limit;
  GLint x = 0, y = 0;
  compute.get_indexed(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &x);
  compute.get_indexed(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &y);
  if (x > 0 && y > 0)
    limit = {guint(x), guint(y)};
  return limit;
}

// The GLSL a context takes: the argument of #version, and whether it has
// textureGather; `compute`, the #version of its compute shaders (empty:
// none).
struct Glsl {
  std::string version;
  bool gather = false;
  std::string compute;
};

// Program variants (see gl_shaders.hpp): kQuad for RGBA8 targets of four
// bytes a texel, else R8; kCompute the compute shader of the variant.
constexpr unsigned kQuad = 1, kNearest = 2, kFill = 4, kPlanes = 8, kCompute = 1u << 24;
// The box's samples along each source axis (gl_layout.hpp box_samples),
// from bit kBoxShift on four bits each: luma x, luma y, chroma x, chroma y.
// 0: a point sample; up to kUnrolled, a constant bound (the loops unroll);
// kDynamic: the count in a uniform, for the long loops of strong
// reductions, which one program serves whatever their length.
constexpr unsigned kBoxShift = 4, kUnrolled = 4, kDynamic = 15;
// The tensor output (kTensorOutput): a compute program only.
constexpr unsigned kTensor = 1u << 25;

unsigned box_variant(const std::array<guint, 4> &samples) {
  unsigned v = 0;
  for (unsigned i = 0; i < 4; ++i)
    v |= (samples[i] > kUnrolled ? kDynamic : samples[i]) << (kBoxShift + 4 * i);
  return v;
}

unsigned box_field(unsigned variant, unsigned i) {
  return variant >> (kBoxShift + 4 * i) & 15;
}

constexpr guint kMaxSourceTextures = 3;
constexpr guint kMaxImages = 3;
// The compute shader's work group (gl_shaders.hpp).
constexpr guint kGroupWidth = 16, kGroupHeight = 4;

// One variant's programs: the fragment program, and the compute program
// where the render computes. Uniforms go to both.
struct Pass {
  GstGLShader *fragment = nullptr;
  GstGLShader *compute = nullptr;
  guint images = 1;  // image units the compute program writes
  guint texels = 1;  // texels of a row an invocation stores (gl_shaders.hpp)

  template <typename Fn>
  void each(Fn &&fn) const {
    fn(fragment);
    if (compute)
      fn(compute);
  }
};

// Where one render writes: per output plane, a texture of width x height
// texels of texel_bytes bytes (4: RGBA8, 1: R8) and the row where the plane
// begins in it. The planes share one texture, or each has its own (apart).
struct Target {
  std::array<guint, 3> texture{};
  guint width = 0;
  guint height = 0;
  guint texel_bytes = 1;
  std::array<guint, 3> row0{};
  bool apart = false;
  bool imported = false;  // ByteTarget::imported
  // Read next by glCopyImageSubData, which no barrier bit but all names.
  bool copied = false;
};

// What reads a texture after the pass's image stores into it: a sampler
// (GL memory downstream), a later image store (the next frame), a draw or
// glReadPixels through a framebuffer, a texture copy. Only these: a
// barrier that also names the buffer objects (GL_ALL_BARRIER_BITS, mapped
// pack buffers among them) may cost a GPU, or its driver on the GL thread,
// a wait for work that has nothing to do with the stores. EF_GL_BARRIER=all
// restores GL_ALL_BARRIER_BITS (diagnostics).
GLbitfield image_store_barriers() {
  const char *forced = g_getenv("EF_GL_BARRIER");
  if (forced && std::strcmp(forced, "all") == 0)
    return GL_ALL_BARRIER_BITS;
  return GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
         GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT;
}

// A scissor box in output pixels.
struct Box {
  gint x, y, w, h;
};

// The bands around the content rectangle: top, bottom, left, right.
std::vector<Box> border_boxes(const GstVideoRectangle &c, gint out_w, gint out_h) {
  const Box bands[] = {{0, 0, out_w, c.y},
                       {0, c.y + c.h, out_w, out_h - c.y - c.h},
                       {0, c.y, c.x, c.h},
                       {c.x + c.w, c.y, out_w - c.x - c.w, c.h}};
  std::vector<Box> boxes;
  for (const Box &b : bands)
    if (b.w > 0 && b.h > 0)
      boxes.push_back(b);
  return boxes;
}

std::string rect_string(const GstVideoRectangle &r) {
  return std::to_string(r.w) + "x" + std::to_string(r.h) + "+" + std::to_string(r.x) + "+" +
         std::to_string(r.y);
}

bool inside(const GstVideoRectangle &r, const GstVideoInfo &info) {
  return r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 && r.x + r.w <= GST_VIDEO_INFO_WIDTH(&info) &&
         r.y + r.h <= GST_VIDEO_INFO_HEIGHT(&info);
}

// Saves what a render changes that GstGL or the caller may rely on (the
// bound framebuffer, the viewport, the clear colour) and resets the rest to
// GL defaults.
class DrawScope {
 public:
  DrawScope(GstGLContext *context, const SamplerFuncs &samplers, const ComputeFuncs *compute)
      : context_(context), gl_(context->gl_vtable), samplers_(samplers), compute_(compute) {
    gl_->GetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
    gl_->GetIntegerv(GL_VIEWPORT, viewport_);
    gl_->GetFloatv(GL_COLOR_CLEAR_VALUE, clear_);
    gl_->GetBooleanv(GL_COLOR_WRITEMASK, mask_);
  }
  ~DrawScope() {
    for (guint unit = 0; unit < kMaxSourceTextures; ++unit) {
      gl_->ActiveTexture(GL_TEXTURE0 + unit);
      gl_->BindTexture(GL_TEXTURE_2D, 0);
      samplers_.bind(unit, 0);
    }
    gl_->ActiveTexture(GL_TEXTURE0);
    if (compute_)
      for (guint unit = 0; unit < kMaxImages; ++unit)
        compute_->bind_image(unit, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    gl_->Disable(GL_SCISSOR_TEST);
    gl_->BindVertexArray(0);
    gst_gl_context_clear_shader(context_);
    gl_->BindFramebuffer(GL_FRAMEBUFFER, GLuint(framebuffer_));
    gl_->Viewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
    gl_->ClearColor(clear_[0], clear_[1], clear_[2], clear_[3]);
    gl_->ColorMask(mask_[0], mask_[1], mask_[2], mask_[3]);
  }
  DrawScope(const DrawScope &) = delete;
  DrawScope &operator=(const DrawScope &) = delete;

 private:
  GstGLContext *context_;
  const GstGLFuncs *gl_;
  const SamplerFuncs &samplers_;
  const ComputeFuncs *compute_;
  GLint framebuffer_ = 0;
  GLint viewport_[4] = {};
  GLfloat clear_[4] = {};
  GLboolean mask_[4] = {};
};

class GlConverterImpl final : public GlConverter {
 public:
  GlConverterImpl(GstGLContext *context, const GstVideoInfo &in, const GstVideoInfo &out,
                  const gl::SourceLayout &source, const gl::OutputLayout &output, Glsl glsl,
                  const SamplerFuncs &samplers, const ComputeFuncs *compute,
                  std::optional<TensorSpec> tensor = std::nullopt)
      : context_(GST_GL_CONTEXT(gst_object_ref(context))),
        in_(in),
        out_(out),
        source_(source),
        output_(output),
        glsl_(std::move(glsl)),
        samplers_(samplers),
        compute_(compute ? std::optional<ComputeFuncs>(*compute) : std::nullopt),
        tensor_(tensor) {}
  ~GlConverterImpl() override;

  Result<void> init();
  Result<void> render_bytes(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                            const ByteTarget &dst, const ConvertParams &params) override;
  Result<void> render_pixels(const std::array<guint, GST_VIDEO_MAX_PLANES> &src, guint dst_texture,
                             const ConvertParams &params) override;
  Result<void> render_tensor(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                             const TensorTarget &dst, const ConvertParams &params) override;
  PassStage stage() const override { return compute_ ? PassStage::Compute : PassStage::Fragment; }
  guint64 dispatches() const override { return dispatches_; }

 private:
  Result<GstGLShader *> program(unsigned variant);
  Result<Pass> pass(unsigned variant, bool computing);
  bool storable(const Target &target) const;
  bool copyable(guint texture) const;
  std::string defines(unsigned variant) const;
  std::array<guint, 4> box(const gl::Geometry &g) const;
  Result<void> check(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                     const ConvertParams &params) const;
  Result<void> render(const std::array<guint, GST_VIDEO_MAX_PLANES> &src, const Target &target,
                      const ConvertParams &params);
  Result<void> attach(const std::array<guint, 3> &textures, guint n);
  void detach(guint n);
  void bind_sources(const std::array<guint, GST_VIDEO_MAX_PLANES> &src);
  void set_source_uniforms(GstGLShader *shader, const gl::Geometry &g,
                           const std::array<guint, 4> &samples);
  void set_plane_uniforms(GstGLShader *shader, const Target &target, guint plane,
                          const gl::ByteRows &rows);
  void draw(const Target &target, guint plane, const Box &box, const Pass *pass);
  void dispatch(const Target &target, guint plane, const Pass &pass, const gl::TexelSpan &span,
                const Box &box);

  GstGLContext *context_;
  GstVideoInfo in_;
  GstVideoInfo out_;
  gl::SourceLayout source_;
  gl::OutputLayout output_;
  Glsl glsl_;
  SamplerFuncs samplers_;
  std::optional<ComputeFuncs> compute_;  // set: the pass computes where it can
  std::map<unsigned, ObjectPtr<GstGLShader>> programs_;
  GLuint vao_ = 0;
  GLuint fbo_ = 0;
  GLuint sampler_ = 0;
  guint64 dispatches_ = 0;
  const GLbitfield barriers_ = image_store_barriers();
  bool stored_ = false;  // image stores since the last barrier
  GLuint staging_ = 0;   // render_pixels' immutable texture, where needed
  // Tensor converters: what they write, and the value table's buffer
  // (tensor_values.hpp) with the settings it holds.
  std::optional<TensorSpec> tensor_;
  GLuint values_ = 0;
  std::optional<TensorNorm> values_norm_;
  gl::GroupLimit group_limit_;  // of a tensor's dispatch (init)
  void set_tensor_uniforms(GstGLShader *shader, const ConvertParams &params,
                           const gl::TensorWords &words);
  void upload_values(const TensorNorm &norm);
};

GlConverterImpl::~GlConverterImpl() {
  programs_.clear();  // GstGLShader deletes its program on the GL thread itself
  // The element may drop a converter from any thread: the GL objects go on
  // the GL thread (thread_add runs at once when called there).
  gst_gl_context_thread_add(
      context_,
      [](GstGLContext *context, gpointer data) {
        auto *self = static_cast<GlConverterImpl *>(data);
        const GstGLFuncs *gl = context->gl_vtable;
        if (self->vao_)
          gl->DeleteVertexArrays(1, &self->vao_);
        if (self->fbo_)
          gl->DeleteFramebuffers(1, &self->fbo_);
        if (self->sampler_)
          self->samplers_.destroy(1, &self->sampler_);
        if (self->staging_)
          gl->DeleteTextures(1, &self->staging_);
        if (self->values_)
          gl->DeleteBuffers(1, &self->values_);
      },
      this);
  gst_object_unref(context_);
}

Result<void> GlConverterImpl::init() {
  const GstGLFuncs *gl = context_->gl_vtable;
  gl->GenVertexArrays(1, &vao_);
  gl->GenFramebuffers(1, &fbo_);
  samplers_.gen(1, &sampler_);
  samplers_.parameter(sampler_, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  samplers_.parameter(sampler_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  samplers_.parameter(sampler_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  samplers_.parameter(sampler_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  if (!vao_ || !fbo_ || !sampler_)
    return Error{EIO, "creating the vertex array, framebuffer or sampler failed"};
  // A tensor is computed or not made: its program now, at caps time.
  if (tensor_) {
    if (!compute_)
      return Error{ENOTSUP,
                   "efconvert's GL backend writes tensors with a compute shader (GL 4.3, GLES "
                   "3.1): this context has none"};
    if (auto built = program(kTensor | kCompute); !built)
      return Error{ENOTSUP, "the GL tensor pass does not build here: " + built.error().message};
    group_limit_ = work_group_limit(*compute_);
    GST_DEBUG("compute work groups: at most %u x %u a dispatch", group_limit_.x, group_limit_.y);
    if (const gl::TensorWords words = gl::tensor_words(*tensor_, group_limit_); !words.groups[0])
      return Error{ENOTSUP, "a tensor of " + std::to_string(tensor_->width) + " x " +
                                std::to_string(tensor_->height) + " needs " +
                                std::to_string(words.invocations) +
                                " invocations, more than one dispatch of this GL context's " +
                                std::to_string(group_limit_.x) + " x " +
                                std::to_string(group_limit_.y) + " work groups holds"};
    return {};
  }
  // The common program now, so that a driver that cannot compile it fails
  // at caps time rather than on the first frame.
  auto common = program(kQuad);
  if (!common)
    return common.error();
  // A driver that cannot build the compute program keeps the fragment pass,
  // which it could (stage() tells the caller).
  if (compute_)
    if (auto built = program(kQuad | kCompute); !built) {
      GST_INFO("the compute pass does not build here, drawing instead: %s",
               built.error().message.c_str());
      compute_.reset();
    }
  return {};
}

Result<Pass> GlConverterImpl::pass(unsigned variant, bool computing) {
  auto fragment = program(variant);
  if (!fragment)
    return fragment.error();
  const bool quads = (variant & kQuad) && output_.planes[0].bytes_per_pixel == 3;
  Pass p{*fragment, nullptr, variant & kPlanes ? output_.n_planes : 1, quads ? 3u : 1u};
  if (computing) {
    auto compute = program(variant | kCompute);
    if (!compute)
      return compute.error();
    p.compute = *compute;
  }
  return p;
}

// Image stores write RGBA8 texels, not into imported images; GLES binds
// only immutable textures as images (GstGL allocates its own with
// glTexImage2D), desktop GL any texture.
bool GlConverterImpl::storable(const Target &target) const {
  if (!compute_ || target.texel_bytes != 4 || target.imported)
    return false;
  if (!(gst_gl_context_get_gl_api(context_) & GST_GL_API_GLES2))
    return true;
  const GstGLFuncs *gl = context_->gl_vtable;
  const guint n = target.apart ? output_.n_planes : 1;
  bool all = true;
  for (guint i = 0; i < n && all; ++i) {
    GLint immutable = GL_FALSE;
    gl->BindTexture(GL_TEXTURE_2D, target.texture[i]);
    gl->GetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
    all = immutable == GL_TRUE;
  }
  gl->BindTexture(GL_TEXTURE_2D, 0);
  return all;
}

std::string GlConverterImpl::defines(unsigned variant) const {
  static constexpr const char *kSourceDefine[] = {"SOURCE_DIRECT", "SOURCE_SEMI_PLANAR",
                                                  "SOURCE_PLANAR", "SOURCE_PACKED_422"};
  const bool computing = variant & kCompute;
  std::string d = "#version " + (computing ? glsl_.compute : glsl_.version) + "\n";
  if (computing)
    d += "#define COMPUTE\n";
  if (glsl_.gather)  // every context with compute shaders has it
    d += "#define GATHER\n";
  d += std::string("#define ") + kSourceDefine[int(source_.kind)] + "\n";
  if (source_.kind == gl::SourceKind::Direct && source_.yuv)
    d += "#define ONE_CHANNEL\n";  // GRAY8: Y alone
  d += source_.luma_first ? "#define LUMA r\n#define CHROMA g\n#define LUMA_COMPONENT 0\n"
                          : "#define LUMA g\n#define CHROMA r\n#define LUMA_COMPONENT 1\n";
  d += "#define BPP " + std::to_string(output_.planes[0].bytes_per_pixel) + "\n";
  d += std::string("#define TEXEL_BYTES ") + (variant & kQuad ? "4" : "1") + "\n";
  if (variant & kNearest)
    d += "#define NEAREST\n";
  if (variant & kFill)
    d += "#define FILL\n";
  if (variant & kPlanes)
    d += "#define PLANES\n";
  if ((variant & kTensor) && tensor_) {
    d += "#define TENSOR\n#define TENSOR_BYTES " + std::to_string(tensor_->element_bytes()) +
         "\n#define TENSOR_CHANNELS " + std::to_string(tensor_->channels) + "\n";
    if (tensor_->layout == TensorLayout::Nchw && tensor_->channels == 3)
      d += "#define TENSOR_PLANAR\n";
  }
  static constexpr const char *kBox[] = {"BOX_X", "BOX_Y", "BOX_CX", "BOX_CY"};
  static constexpr const char *kDynamicCount[] = {"u_box.x", "u_box.y", "u_box.z", "u_box.w"};
  if (variant & (0xffffu << kBoxShift)) {
    d += "#define BOX\n";
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned n = box_field(variant, i);
      d += std::string("#define ") + kBox[i] + " " +
           (n == kDynamic ? kDynamicCount[i] : std::to_string(n)) + "\n";
    }
  }
  return d;
}

Result<GstGLShader *> GlConverterImpl::program(unsigned variant) {
  if (auto it = programs_.find(variant); it != programs_.end())
    return it->second.get();
  const bool computing = variant & kCompute;
  GstGLSLVersion version;
  GstGLSLProfile profile;
  gst_glsl_version_profile_from_string((computing ? glsl_.compute : glsl_.version).c_str(),
                                       &version, &profile);
  const std::string head = defines(variant);
  GError *raw_error = nullptr;
  GstGLShader *shader = nullptr;
  if (computing) {
    const std::string body = head + gl::kPassShader + (variant & kTensor ? gl::kTensorOutput : "");
    GstGLSLStage *stage =
        gst_glsl_stage_new_with_string(context_, GL_COMPUTE_SHADER, version, profile, body.c_str());
    shader = gst_gl_shader_new_link_with_stages(context_, &raw_error, stage, nullptr);
  } else {
    GstGLSLStage *vertex = gst_glsl_stage_new_with_string(
        context_, GL_VERTEX_SHADER, version, profile, (head + gl::kVertexShader).c_str());
    GstGLSLStage *fragment = gst_glsl_stage_new_with_string(
        context_, GL_FRAGMENT_SHADER, version, profile, (head + gl::kPassShader).c_str());
    shader = gst_gl_shader_new_link_with_stages(context_, &raw_error, vertex, fragment, nullptr);
  }
  ErrorPtr error(raw_error);
  if (!shader)
    return Error{EIO, "compiling the efconvert shader (variant " + std::to_string(variant) +
                          ") failed: " + (error ? error->message : "unknown error")};
  if (g_object_is_floating(shader))
    gst_object_ref_sink(shader);
  programs_.emplace(variant, ObjectPtr<GstGLShader>(shader));
  return shader;
}

Result<void> GlConverterImpl::check(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                    const ConvertParams &params) const {
  for (guint p = 0; p < source_.n_textures; ++p)
    if (src[p] == 0)
      return Error{EINVAL, "source texture of plane " + std::to_string(p) + " is 0"};
  if (!inside(params.crop, in_))
    return Error{EINVAL, "crop " + rect_string(params.crop) + " is not inside the " +
                             std::to_string(GST_VIDEO_INFO_WIDTH(&in_)) + "x" +
                             std::to_string(GST_VIDEO_INFO_HEIGHT(&in_)) + " input"};
  if (!inside(params.content, out_))
    return Error{EINVAL, "content " + rect_string(params.content) + " is not inside the " +
                             std::to_string(GST_VIDEO_INFO_WIDTH(&out_)) + "x" +
                             std::to_string(GST_VIDEO_INFO_HEIGHT(&out_)) + " output"};
  return {};
}

Result<void> GlConverterImpl::render_bytes(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                           const ByteTarget &dst, const ConvertParams &params) {
  if (dst.stride == 0)
    return Error{EINVAL, "byte target has a stride of 0"};
  if ((dst.texel_bytes != 1 && dst.texel_bytes != 4) || dst.stride % dst.texel_bytes != 0)
    return Error{EINVAL, "stride " + std::to_string(dst.stride) + " is not a whole number of " +
                             std::to_string(dst.texel_bytes) + "-byte texels"};
  const guint height = GST_VIDEO_INFO_HEIGHT(&out_);
  const bool apart = dst.plane_textures[0] != 0;
  // Textures of their own hold their plane's rows alone.
  Target target{{},    dst.width(), apart ? height : dst.rows, dst.texel_bytes, {},
                apart, dst.imported};
  for (guint p = 0; p < output_.n_planes; ++p) {
    const guint row_bytes = GST_VIDEO_INFO_WIDTH(&out_) * output_.planes[p].bytes_per_pixel;
    const std::string plane = "plane " + std::to_string(p) + ": ";
    target.texture[p] = apart ? dst.plane_textures[p] : dst.texture;
    if (target.texture[p] == 0)
      return Error{EINVAL, plane + "byte target has no texture"};
    if (dst.stride < row_bytes)
      return Error{EINVAL, plane + "stride " + std::to_string(dst.stride) + " is below the " +
                               std::to_string(row_bytes) + " bytes of a row"};
    if (apart)
      continue;
    if (dst.offset[p] % dst.stride != 0)
      return Error{EINVAL, plane + "offset " + std::to_string(dst.offset[p]) +
                               " is not a whole number of rows"};
    target.row0[p] = guint(dst.offset[p] / dst.stride);
    if (target.row0[p] + height > dst.rows)
      return Error{EINVAL, plane + "rows " + std::to_string(target.row0[p]) + " to " +
                               std::to_string(target.row0[p] + height) +
                               " lie past the texture's " + std::to_string(dst.rows)};
  }
  return render(src, target, params);
}

// glCopyImageSubData copies into complete textures only (else nothing,
// and a GL error): one whose minifying filter takes no mipmaps is, with its
// level 0 (GstGL's are: GL_LINEAR).
bool GlConverterImpl::copyable(guint texture) const {
  const GstGLFuncs *gl = context_->gl_vtable;
  GLint filter = 0;
  gl->BindTexture(GL_TEXTURE_2D, texture);
  gl->GetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, &filter);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  return filter == GL_LINEAR || filter == GL_NEAREST;
}

Result<void> GlConverterImpl::render_pixels(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                            guint dst_texture, const ConvertParams &params) {
  if (!output_.pixels)
    return Error{EINVAL, std::string("render_pixels writes RGBA8 texels; ") +
                             GST_VIDEO_INFO_NAME(&out_) + " has no such layout"};
  if (dst_texture == 0)
    return Error{EINVAL, "destination texture is 0"};
  // Pixels of four bytes in RGBA8 texels: a byte target of one plane.
  const GLsizei w = GST_VIDEO_INFO_WIDTH(&out_), h = GST_VIDEO_INFO_HEIGHT(&out_);
  const Target target{{dst_texture}, guint(w), guint(h), 4, {}};
  if (storable(target) || !compute_ || !compute_->copy_image || !has_texture_storage(context_) ||
      !copyable(dst_texture))
    return render(src, target, params);
  // GLES stores into immutable textures only, and GstGL's are not: the
  // frame (every texel of it: content and borders) is computed into one of
  // ours and copied over, a few microseconds on a GPU against a fragment
  // pass many times the compute pass's cost there.
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!staging_) {
    gl->GenTextures(1, &staging_);
    gl->BindTexture(GL_TEXTURE_2D, staging_);
    allocate_texture_2d(context_, GL_RGBA8, GL_RGBA, w, h, nullptr);
    gl->BindTexture(GL_TEXTURE_2D, 0);
  }
  Target staged = target;
  staged.texture[0] = staging_;
  staged.copied = true;
  if (auto ok = render(src, staged, params); !ok)
    return ok;
  compute_->copy_image(staging_, GL_TEXTURE_2D, 0, 0, 0, 0, dst_texture, GL_TEXTURE_2D, 0, 0, 0, 0,
                       w, h, 1);
  return {};
}

// Textures 0..n-1 as colour attachments 0..n-1 and the draw buffers.
Result<void> GlConverterImpl::attach(const std::array<guint, 3> &textures, guint n) {
  const GstGLFuncs *gl = context_->gl_vtable;
  gl->BindFramebuffer(GL_FRAMEBUFFER, fbo_);
  GLenum buffers[3];
  for (guint i = 0; i < n; ++i) {
    buffers[i] = GL_COLOR_ATTACHMENT0 + i;
    gl->FramebufferTexture2D(GL_FRAMEBUFFER, buffers[i], GL_TEXTURE_2D, textures[i], 0);
  }
  gl->DrawBuffers(GLsizei(n), buffers);
  const GLenum status = gl->CheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    detach(n);
    std::string names;
    for (guint i = 0; i < n; ++i)
      names += (i ? ", " : "") + std::to_string(textures[i]);
    return Error{EINVAL, "texture " + names + " cannot be rendered to (framebuffer status " +
                             std::to_string(status) + ")"};
  }
  return {};
}

// Not left attached: a texture attached to our framebuffer outlives its
// owner's glDeleteTextures.
void GlConverterImpl::detach(guint n) {
  const GstGLFuncs *gl = context_->gl_vtable;
  for (guint i = 0; i < n; ++i)
    gl->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + i, GL_TEXTURE_2D, 0, 0);
  const GLenum first = GL_COLOR_ATTACHMENT0;
  gl->DrawBuffers(1, &first);
}

void GlConverterImpl::bind_sources(const std::array<guint, GST_VIDEO_MAX_PLANES> &src) {
  const GstGLFuncs *gl = context_->gl_vtable;
  for (guint p = 0; p < source_.n_textures; ++p) {
    gl->ActiveTexture(GL_TEXTURE0 + p);
    gl->BindTexture(GL_TEXTURE_2D, src[p]);
    samplers_.bind(p, sampler_);
  }
}

// The box's samples along source x and y: luma's (or whole pixels'), and
// chroma's in its own samples, fewer where it is subsampled.
std::array<guint, 4> GlConverterImpl::box(const gl::Geometry &g) const {
  if (g.nearest)
    return {0, 0, 0, 0};
  const bool yuv = source_.kind != gl::SourceKind::Direct;
  const double sx = yuv ? 1 << GST_VIDEO_FORMAT_INFO_W_SUB(in_.finfo, 1) : 1;
  const double sy = yuv ? 1 << GST_VIDEO_FORMAT_INFO_H_SUB(in_.finfo, 1) : 1;
  // Chroma takes the box wherever luma does: the same footprint, however
  // few of its own samples that covers.
  const bool bx = gl::takes_box(g.footprint[0]), by = gl::takes_box(g.footprint[1]);
  return {bx ? gl::box_samples(g.footprint[0]) : 0, by ? gl::box_samples(g.footprint[1]) : 0,
          bx && yuv ? gl::box_samples(g.footprint[0] / sx) : 0,
          by && yuv ? gl::box_samples(g.footprint[1] / sy) : 0};
}

Result<void> GlConverterImpl::render(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                     const Target &target, const ConvertParams &params) {
  if (auto ok = check(src, params); !ok)
    return ok;
  const gl::Geometry geometry = gl::plan_geometry(params);
  const unsigned base = target.texel_bytes == 4 ? kQuad : 0;
  const bool computing = storable(target);
  // Planes in textures of their own are drawn in one pass.
  const bool one_pass = target.apart && output_.n_planes > 1;
  const std::array<guint, 4> samples = box(geometry);
  auto content = pass(
      base | (geometry.nearest ? kNearest : 0) | (one_pass ? kPlanes : 0) | box_variant(samples),
      computing);
  if (!content)
    return content.error();
  auto fill = pass(base | kFill, computing);
  if (!fill)
    return fill.error();

  const GstGLFuncs *gl = context_->gl_vtable;
  DrawScope scope(context_, samplers_, compute_ ? &*compute_ : nullptr);
  // One barrier after the render's last image store, whichever way it
  // ends: the texels its dispatches and draws write are disjoint, so no
  // part of the render reads what another stored.
  struct AfterStores {
    GlConverterImpl &self;
    GLbitfield bits;
    ~AfterStores() {
      if (self.stored_)
        self.compute_->barrier(bits);
      self.stored_ = false;
    }
  } after_stores{*this, target.copied ? GLbitfield(GL_ALL_BARRIER_BITS) : barriers_};
  const guint n_attached = one_pass ? output_.n_planes : 1;
  if (auto ok = attach(target.texture, n_attached); !ok)
    return ok;
  gl->Viewport(0, 0, GLsizei(target.width), GLsizei(target.height));
  gl->Enable(GL_SCISSOR_TEST);
  gl->BindVertexArray(vao_);
  bind_sources(src);

  content->each([&](GstGLShader *shader) {
    gst_gl_shader_use(shader);
    set_source_uniforms(shader, geometry, samples);
  });
  const gl::ColourTransform colour = gl::colour_transform(source_, in_, params, output_.gray);
  const GstVideoRectangle &c = params.content;
  auto set_plane = [&](const Pass &pass, guint p, const gl::ByteRows &rows) {
    pass.each([&](GstGLShader *shader) {
      gst_gl_shader_use(shader);
      set_plane_uniforms(shader, target, p, rows);
    });
  };
  if (one_pass) {
    // Row 0 and one byte a pixel in every plane: plane 0 stands for all.
    set_plane(*content, 0, gl::content_rows(colour, gl::planes_as_one(output_), source_.alpha));
    draw(target, 0, {c.x, c.y, c.w, c.h}, &*content);
    detach(n_attached);
  } else {
    for (guint p = 0; p < output_.n_planes; ++p) {
      set_plane(*content, p, gl::content_rows(colour, output_.planes[p], source_.alpha));
      draw(target, p, {c.x, c.y, c.w, c.h}, &*content);
    }
  }
  const auto borders = border_boxes(c, GST_VIDEO_INFO_WIDTH(&out_), GST_VIDEO_INFO_HEIGHT(&out_));
  for (guint p = 0; p < output_.n_planes && !borders.empty(); ++p) {
    // Each plane's fill differs: one at a time, into its own texture.
    if (one_pass)
      if (auto ok = attach({target.texture[p]}, 1); !ok)
        return ok;
    const gl::ByteRows rows = gl::fill_rows(params, output_.planes[p], output_.gray);
    // A border whose texels are all alike is a glClear, at memset speed.
    const auto clear =
        gl::clear_colour(rows, output_.planes[p].bytes_per_pixel, target.texel_bytes);
    if (clear)
      gl->ClearColor((*clear)[0], (*clear)[1], (*clear)[2], (*clear)[3]);
    else
      set_plane(*fill, p, rows);
    for (const Box &box : borders)
      draw(target, p, box, clear ? nullptr : &*fill);
  }
  detach(1);
  return {};
}

// A box of output pixels covers bytes of its rows that need not begin or
// end on a texel: the texels it shares with its neighbours are written with
// only its own bytes' channels (the colour mask), so that content, borders
// and row padding each keep what is theirs. Whole texels are computed where
// `pass` has a compute program. No pass: a glClear.
void GlConverterImpl::draw(const Target &target, guint plane, const Box &box, const Pass *pass) {
  const GstGLFuncs *gl = context_->gl_vtable;
  const gint bpp = gint(output_.planes[plane].bytes_per_pixel);
  for (const gl::TexelSpan &span :
       gl::texel_spans(box.x * bpp, (box.x + box.w) * bpp, target.texel_bytes)) {
    const auto &b = span.bytes;
    if (pass && pass->compute && b[0] && b[1] && b[2] && b[3]) {
      dispatch(target, plane, *pass, span, box);
      continue;
    }
    gl->ColorMask(b[0], b[1], b[2], b[3]);
    gl->Scissor(span.x, gint(target.row0[plane]) + box.y, span.w, box.h);
    if (!pass) {
      gl->Clear(GL_COLOR_BUFFER_BIT);
    } else {
      gst_gl_shader_use(pass->fragment);
      gl->DrawArrays(GL_TRIANGLES, 0, 3);
    }
  }
}

// The texels of `span` over the box's rows, as image stores. The render's
// barrier orders them before whatever reads the texture next.
void GlConverterImpl::dispatch(const Target &target, guint plane, const Pass &pass,
                               const gl::TexelSpan &span, const Box &box) {
  const gint row = gint(target.row0[plane]) + box.y;
  gst_gl_shader_use(pass.compute);
  gst_gl_shader_set_uniform_2i(pass.compute, "u_origin", span.x, row);
  gst_gl_shader_set_uniform_2i(pass.compute, "u_end", span.x + span.w, row + box.h);
  for (guint i = 0; i < pass.images; ++i)
    compute_->bind_image(i, target.texture[pass.images > 1 ? i : plane], 0, GL_FALSE, 0,
                         GL_WRITE_ONLY, GL_RGBA8);
  // Invocations along x: one per pass.texels texels, from the group that
  // holds span.x.
  const guint first = guint(span.x) / pass.texels;
  const guint last = (guint(span.x + span.w) + pass.texels - 1) / pass.texels;
  compute_->dispatch((last - first + kGroupWidth - 1) / kGroupWidth,
                     (guint(box.h) + kGroupHeight - 1) / kGroupHeight, 1);
  stored_ = true;
  ++dispatches_;
}

void GlConverterImpl::set_plane_uniforms(GstGLShader *shader, const Target &target, guint plane,
                                         const gl::ByteRows &rows) {
  gst_gl_shader_set_uniform_1f(shader, "u_row0", float(target.row0[plane]));
  gst_gl_shader_set_uniform_4fv(shader, "u_bytes", 4, rows.coef[0].data());
  gst_gl_shader_set_uniform_4fv(shader, "u_const", 1, rows.constant.data());
}

void GlConverterImpl::set_source_uniforms(GstGLShader *shader, const gl::Geometry &g,
                                          const std::array<guint, 4> &samples) {
  for (guint p = 0; p < kMaxSourceTextures; ++p)
    gst_gl_shader_set_uniform_1i(shader, ("u_tex" + std::to_string(p)).c_str(), gint(p));
  // GstGL's textures: plane 0 has the frame's size (YUY2's RG8 too), the
  // chroma planes their component's.
  const gint w = GST_VIDEO_INFO_WIDTH(&in_), h = GST_VIDEO_INFO_HEIGHT(&in_);
  const gint cw = GST_VIDEO_INFO_COMP_WIDTH(&in_, 1), ch = GST_VIDEO_INFO_COMP_HEIGHT(&in_, 1);
  gst_gl_shader_set_uniform_2f(shader, "u_inv_size0", 1.0f / w, 1.0f / h);
  gst_gl_shader_set_uniform_2f(shader, "u_inv_size1", 1.0f / MAX(cw, 1), 1.0f / MAX(ch, 1));
  gst_gl_shader_set_uniform_2i(shader, "u_chroma_last", MAX(cw, 1) - 1, MAX(ch, 1) - 1);
  gst_gl_shader_set_uniform_2i(shader, "u_packed", h, (w + 1) / 2 - 1);
  gst_gl_shader_set_uniform_4fv(shader, "u_chroma", 1, gl::chroma_siting(in_).data());
  gst_gl_shader_set_uniform_2fv(shader, "u_map_x", 1, g.map_x.data());
  gst_gl_shader_set_uniform_2fv(shader, "u_map_y", 1, g.map_y.data());
  gst_gl_shader_set_uniform_2fv(shader, "u_map_o", 1, g.map_o.data());
  gst_gl_shader_set_uniform_4fv(shader, "u_clamp", 1, g.clamp.data());
  // The box's (uniforms a program without it does not have are ignored).
  gst_gl_shader_set_uniform_2f(shader, "u_half", float(g.footprint[0] / 2),
                               float(g.footprint[1] / 2));
  gst_gl_shader_set_uniform_4fv(shader, "u_edges", 1, g.edges.data());
  gst_gl_shader_set_uniform_4i(shader, "u_box", gint(samples[0]), gint(samples[1]),
                               gint(samples[2]), gint(samples[3]));
}

// ---------------------------------------------------------------------
// Tensors: the output side of the compute pass (kTensorOutput). The same
// sampling and colour as an RGB, BGR or GRAY8 frame (pixel_bytes), then
// into a buffer object: normalised in float (float tensors), or each
// 8-bit level through the value table (int8, uint8).

#ifndef GL_SHADER_STORAGE_BUFFER
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#endif

// The table of every level's value (tensor_values.hpp) in buffer values_,
// made again only when the settings change.
void GlConverterImpl::upload_values(const TensorNorm &norm) {
  if (values_norm_ && *values_norm_ == norm)
    return;
  const TensorValueTable table = tensor_value_table(tensor_->type, norm);
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!values_)
    gl->GenBuffers(1, &values_);
  gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, values_);
  gl->BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(sizeof table), table.data(), GL_STATIC_DRAW);
  gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  values_norm_ = norm;
}

void GlConverterImpl::set_tensor_uniforms(GstGLShader *shader, const ConvertParams &params,
                                          const gl::TensorWords &words) {
  // The bytes of an RGB, BGR or GRAY8 pixel: the tensor's channel order.
  const bool gray = tensor_->channels == 1;
  const GstVideoFormat format = gray              ? GST_VIDEO_FORMAT_GRAY8
                                : params.norm.bgr ? GST_VIDEO_FORMAT_BGR
                                                  : GST_VIDEO_FORMAT_RGB;
  const gl::OutputPlane plane = gl::output_layout(format)->planes[0];
  const gl::ColourTransform colour = gl::colour_transform(source_, in_, params, gray);
  const gl::ByteRows rows = gl::content_rows(colour, plane, source_.alpha);
  gst_gl_shader_set_uniform_1f(shader, "u_row0", 0.0f);
  gst_gl_shader_set_uniform_4fv(shader, "u_bytes", 4, rows.coef[0].data());
  gst_gl_shader_set_uniform_4fv(shader, "u_const", 1, rows.constant.data());
  // The border's levels, exact bytes (fill_rows rounds a luma itself).
  const gl::ByteRows fill = gl::fill_rows(params, plane, gray);
  std::array<float, 4> levels{};
  for (guint b = 0; b < 4; ++b)
    levels[b] = std::round(fill.constant[b] * 255.0f);
  gst_gl_shader_set_uniform_4fv(shader, "u_fill_levels", 1, levels.data());
  if (tensor_->type == TensorType::Float32 || tensor_->type == TensorType::Float16) {
    const TensorNorm &n = params.norm;
    gst_gl_shader_set_uniform_3f(shader, "u_mean", float(n.mean[0]), float(n.mean[1]),
                                 float(n.mean[2]));
    gst_gl_shader_set_uniform_3f(shader, "u_std", float(n.stddev[0]), float(n.stddev[1]),
                                 float(n.stddev[2]));
  }
  gst_gl_shader_set_uniform_2i(shader, "u_size", tensor_->width, tensor_->height);
  const GstVideoRectangle &c = params.content;
  gst_gl_shader_set_uniform_4i(shader, "u_content", c.x, c.y, c.w, c.h);
  gst_gl_shader_set_uniform_1i(shader, "u_plane_words", gint(words.plane_words));
}

Result<void> GlConverterImpl::render_tensor(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                            const TensorTarget &dst, const ConvertParams &params) {
  if (!tensor_ || !compute_)
    return Error{EINVAL, "this GL converter makes no tensors"};
  if (dst.buffer == 0)
    return Error{EINVAL, "the tensor's buffer object is 0"};
  if (auto ok = check(src, params); !ok)
    return ok;
  const gl::Geometry geometry = gl::plan_geometry(params);
  const std::array<guint, 4> samples = box(geometry);
  auto shader =
      program(kTensor | kCompute | (geometry.nearest ? kNearest : 0) | box_variant(samples));
  if (!shader)
    return shader.error();
  const gl::TensorWords words = gl::tensor_words(*tensor_, group_limit_);
  upload_values(params.norm);
  DrawScope scope(context_, samplers_, &*compute_);
  bind_sources(src);
  gst_gl_shader_use(*shader);
  set_source_uniforms(*shader, geometry, samples);
  set_tensor_uniforms(*shader, params, words);
  compute_->bind_range(GL_SHADER_STORAGE_BUFFER, 0, dst.buffer, GLintptr(dst.offset),
                       GLsizeiptr(words.bytes));
  compute_->bind_base(GL_SHADER_STORAGE_BUFFER, 1, values_);
  compute_->dispatch(words.groups[0], words.groups[1], 1);
  // Ordered before whatever reads the words next: a copy, a mapping, a
  // consumer's shader.
  compute_->barrier(GL_ALL_BARRIER_BITS);
  compute_->bind_base(GL_SHADER_STORAGE_BUFFER, 0, 0);
  compute_->bind_base(GL_SHADER_STORAGE_BUFFER, 1, 0);
  ++dispatches_;
  return {};
}

// The GLSL to write for this context: ES 3.00 on GLES 3.0, 3.30 on desktop
// GL 3.3 (texelFetch, integers and gl_VertexID need them); ES 3.10 and 4.00
// where textureGather is there. GLES 2 and older desktop GL are refused. On
// desktop GL the profile is the context's own, as GstGL reports it: a
// compatibility context (GST_GL_API=opengl) takes no `core` shaders, and
// GstGL then refuses the stage (seen on NVIDIA 580, GL 4.6 compatibility).
Result<Glsl> glsl_for(GstGLContext *context) {
  if (gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 1))
    return Glsl{"310 es", true, "310 es"};
  if (gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 0))
    return Glsl{"300 es", false, ""};
  struct Candidate {
    GstGLSLVersion version;
    const char *text;
  };
  for (const Candidate c :
       {Candidate{GST_GLSL_VERSION_400, "400"}, Candidate{GST_GLSL_VERSION_330, "330"}})
    for (const GstGLSLProfile profile : {GST_GLSL_PROFILE_CORE, GST_GLSL_PROFILE_COMPATIBILITY})
      if (gst_gl_context_supports_glsl_profile_version(context, c.version, profile)) {
        const char *suffix = profile == GST_GLSL_PROFILE_CORE ? " core" : " compatibility";
        // Compute shaders are GL 4.3's, and its GLSL 430 (of the same
        // profile); a compatibility context's API is OPENGL, not OPENGL3.
        const bool computes = c.version == GST_GLSL_VERSION_400 &&
                              gst_gl_context_check_gl_version(
                                  context, GstGLAPI(GST_GL_API_OPENGL | GST_GL_API_OPENGL3), 4, 3);
        return Glsl{std::string(c.text) + suffix, c.version == GST_GLSL_VERSION_400,
                    computes ? std::string("430") + suffix : std::string()};
      }
  gint major = 0, minor = 0;
  gst_gl_context_get_gl_version(context, &major, &minor);
  return Error{ENOTSUP, "efconvert's GL backend needs GLES 3.0 or GL 3.3; the context has " +
                            std::to_string(major) + "." + std::to_string(minor)};
}

}  // namespace

guint ByteTarget::gl_internal_format() const {
  return texel_bytes == 4 ? GL_RGBA8 : GL_R8;
}

guint ByteTarget::gl_format() const {
  return texel_bytes == 4 ? GL_RGBA : GL_RED;
}

GstVideoFormat ByteTarget::video_format() const {
  return texel_bytes == 4 ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_GRAY8;
}

bool GlConverter::computes(GstGLContext *context) {
  auto glsl = glsl_for(context);
  ComputeFuncs compute;
  return glsl && !glsl->compute.empty() && compute.load(context);
}

Result<std::unique_ptr<GlConverter>> GlConverter::create_tensor(GstGLContext *context,
                                                                const GstVideoInfo &in,
                                                                const TensorSpec &tensor) {
  const auto source = gl::source_layout(GST_VIDEO_INFO_FORMAT(&in));
  if (!source)
    return Error{EINVAL,
                 std::string("efconvert's GL backend does not read ") + GST_VIDEO_INFO_NAME(&in)};
  // The frame a tensor is made of: its pixels' bytes in RGB (or BGR,
  // chosen per frame) or GRAY8.
  GstVideoInfo staging;
  gst_video_info_set_format(&staging,
                            tensor.channels == 1 ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB,
                            guint(tensor.width), guint(tensor.height));
  auto glsl = glsl_for(context);
  if (!glsl)
    return glsl.error();
  SamplerFuncs samplers;
  if (!samplers.load(context))
    return Error{ENOTSUP, "the GL context has no sampler objects (glGenSamplers)"};
  ComputeFuncs compute;
  const bool computes = !glsl->compute.empty() && compute.load(context);
  auto converter = std::make_unique<GlConverterImpl>(
      context, in, staging, *source, *gl::output_layout(GST_VIDEO_INFO_FORMAT(&staging)), *glsl,
      samplers, computes ? &compute : nullptr, tensor);
  if (auto ok = converter->init(); !ok)
    return ok.error();
  return std::unique_ptr<GlConverter>(std::move(converter));
}

Result<std::unique_ptr<GlConverter>> GlConverter::create(GstGLContext *context,
                                                         const GstVideoInfo &in,
                                                         const GstVideoInfo &out, PassStage stage) {
  const auto source = gl::source_layout(GST_VIDEO_INFO_FORMAT(&in));
  if (!source)
    return Error{EINVAL,
                 std::string("efconvert's GL backend does not read ") + GST_VIDEO_INFO_NAME(&in)};
  const auto output = gl::output_layout(GST_VIDEO_INFO_FORMAT(&out));
  if (!output)
    return Error{EINVAL,
                 std::string("efconvert's GL backend does not write ") + GST_VIDEO_INFO_NAME(&out)};
  if (source->deep)
    for (GstGLFormat format : {GST_GL_R16, GST_GL_RG16})
      if (!gst_gl_format_is_supported(context, format))
        return Error{ENOTSUP, std::string("the GL context has no 16-bit textures (") +
                                  (format == GST_GL_R16 ? "R16" : "RG16") + ") for " +
                                  GST_VIDEO_INFO_NAME(&in)};
  auto glsl = glsl_for(context);
  if (!glsl)
    return glsl.error();
  SamplerFuncs samplers;
  if (!samplers.load(context))
    return Error{ENOTSUP, "the GL context has no sampler objects (glGenSamplers)"};
  ComputeFuncs compute;
  const bool computes =
      stage == PassStage::Compute && !glsl->compute.empty() && compute.load(context);
  auto converter = std::make_unique<GlConverterImpl>(context, in, out, *source, *output, *glsl,
                                                     samplers, computes ? &compute : nullptr);
  if (auto ok = converter->init(); !ok)
    return ok.error();
  return std::unique_ptr<GlConverter>(std::move(converter));
}

}  // namespace ef::gst
