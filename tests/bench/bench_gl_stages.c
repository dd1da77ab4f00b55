// SPDX-License-Identifier: LGPL-2.1-or-later
// Where a GPU spends efconvert's kind of pass: one 640x640 RGBA8 output,
// every pixel the average of TxT bilinear taps of a 1920x1080 RGBA8 texture
// (T = 0, 1, 2, 4, 6), as a fragment shader into a framebuffer and as a
// compute shader storing into the same texture, timed by GL timer queries
// (EXT_disjoint_timer_query) over 200 passes each. GLES 3.1 on the first
// EGL device. No GStreamer: the stage's cost alone, to decide which stage the
// GL backend should render with on a given GPU (docs/BENCHMARKS.md).
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
// After gl31.h, which defines what its declarations are made of.
#include <GLES2/gl2ext.h>
#include <stdio.h>
#include <stdlib.h>

enum { kOutSide = 640, kInWidth = 1920, kInHeight = 1080, kPasses = 200, kGroup = 16 };

static PFNGLGENQUERIESEXTPROC gen_queries;
static PFNGLBEGINQUERYEXTPROC begin_query;
static PFNGLENDQUERYEXTPROC end_query;
static PFNGLGETQUERYOBJECTUI64VEXTPROC query_result;

static GLuint fragment_program, compute_program, framebuffer, out_texture;

static const char kVertex[] =
    "#version 310 es\n"
    "void main() {\n"
    "  vec2 p = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;\n"
    "  gl_Position = vec4(p, 0.0, 1.0);\n"
    "}\n";
// Output pixel centre o -> a 3x reduction's source point, taps 0.75 px apart.
#define SHADE                                                                              \
  "uniform highp sampler2D u_tex;\n"                                                       \
  "uniform int u_taps;\n"                                                                  \
  "vec4 shade(vec2 o) {\n"                                                                 \
  "  vec4 sum = vec4(0.0);\n"                                                              \
  "  for (int y = 0; y < u_taps; y++)\n"                                                   \
  "    for (int x = 0; x < u_taps; x++)\n"                                                 \
  "      sum += texture(u_tex, (o * 3.0 + vec2(x, y) * 0.75 - 1.0) / vec2(1920, 1080));\n" \
  "  return sum / float(max(u_taps * u_taps, 1));\n"                                       \
  "}\n"
static const char kFragment[] = "#version 310 es\nprecision highp float;\n" SHADE
                                "out vec4 o_color;\n"
                                "void main() { o_color = shade(gl_FragCoord.xy); }\n";
static const char kCompute[] =
    "#version 310 es\nprecision highp float;\n"
    "layout(local_size_x = 16, local_size_y = 16) in;\n"
    "layout(rgba8, binding = 0) writeonly uniform highp image2D u_out;\n" SHADE
    "void main() {\n"
    "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "  imageStore(u_out, p, shade(vec2(p) + 0.5));\n"
    "}\n";

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "bench_gl_stages: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(77);  // no GLES 3.1 device here: a skip, not a result
}

static GLuint shader(GLenum type, const char *source) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &source, NULL);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096] = "";
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    fail("compiling a shader failed", log);
  }
  return s;
}

static GLuint program(GLuint a, GLuint b) {
  GLuint p = glCreateProgram();
  glAttachShader(p, a);
  if (b)
    glAttachShader(p, b);
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    fail("linking a program failed", log);
  }
  return p;
}

static void fragment_pass(void) {
  glUseProgram(fragment_program);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, kOutSide, kOutSide);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

static void compute_pass(void) {
  glUseProgram(compute_program);
  glBindImageTexture(0, out_texture, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  glDispatchCompute(kOutSide / kGroup, kOutSide / kGroup, 1);
  glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
}

// GPU nanoseconds a pass, over kPasses passes after one warm-up pass.
static double pass_ns(void (*pass)(void)) {
  GLuint query = 0;
  gen_queries(1, &query);
  pass();
  glFinish();
  begin_query(GL_TIME_ELAPSED_EXT, query);
  for (int i = 0; i < kPasses; i++)
    pass();
  end_query(GL_TIME_ELAPSED_EXT);
  GLuint64 ns = 0;
  query_result(query, GL_QUERY_RESULT_EXT, &ns);
  return (double)ns / kPasses;
}

static void make_current(void) {
  PFNEGLQUERYDEVICESEXTPROC query_devices =
      (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  EGLDeviceEXT device;
  EGLint n = 0;
  if (!query_devices || !platform_display || !query_devices(1, &device, &n) || n < 1)
    fail("no EGL device", NULL);
  EGLDisplay display = platform_display(EGL_PLATFORM_DEVICE_EXT, device, NULL);
  if (!eglInitialize(display, NULL, NULL) || !eglBindAPI(EGL_OPENGL_ES_API))
    fail("EGL does not initialise on the device", NULL);
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE,
                                   EGL_PBUFFER_BIT, EGL_NONE};
  EGLConfig config;
  EGLint configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs < 1)
    fail("no GLES 3 config", NULL);
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                    EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT ||
      !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    fail("no surfaceless GLES 3.1 context", NULL);
  gen_queries = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
  begin_query = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
  end_query = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
  query_result = (PFNGLGETQUERYOBJECTUI64VEXTPROC)eglGetProcAddress("glGetQueryObjectui64vEXT");
  if (!gen_queries || !begin_query || !end_query || !query_result)
    fail("no EXT_disjoint_timer_query", NULL);
}

static void make_textures(void) {
  GLuint in_texture = 0;
  glGenTextures(1, &in_texture);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, in_texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kInWidth, kInHeight);
  unsigned char *pixels = malloc((size_t)kInWidth * kInHeight * 4);
  for (size_t i = 0; i < (size_t)kInWidth * kInHeight * 4; i++)
    pixels[i] = (unsigned char)(i * 7);  // not flat: every tap reads other bytes
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kInWidth, kInHeight, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  free(pixels);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glGenTextures(1, &out_texture);
  glBindTexture(GL_TEXTURE_2D, out_texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kOutSide, kOutSide);
  glBindTexture(GL_TEXTURE_2D, in_texture);
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out_texture, 0);
}

static void set_taps(GLuint p, int taps) {
  glUseProgram(p);
  glUniform1i(glGetUniformLocation(p, "u_taps"), taps);
  glUniform1i(glGetUniformLocation(p, "u_tex"), 0);
}

int main(void) {
  make_current();
  printf("GL_RENDERER %s | %s\n", glGetString(GL_RENDERER), glGetString(GL_VERSION));
  make_textures();
  GLuint vertex_array = 0;
  glGenVertexArrays(1, &vertex_array);
  glBindVertexArray(vertex_array);
  fragment_program =
      program(shader(GL_VERTEX_SHADER, kVertex), shader(GL_FRAGMENT_SHADER, kFragment));
  compute_program = program(shader(GL_COMPUTE_SHADER, kCompute), 0);
  printf(
      "| taps | fragment shader | compute shader | fragment / compute |\n|---:|---:|---:|---:|\n");
  const int taps[] = {0, 1, 2, 4, 6};
  for (size_t i = 0; i < sizeof taps / sizeof taps[0]; i++) {
    set_taps(fragment_program, taps[i]);
    set_taps(compute_program, taps[i]);
    const double fragment = pass_ns(fragment_pass), compute = pass_ns(compute_pass);
    printf("| %dx%d | %.1f us | %.1f us | %.2fx |\n", taps[i], taps[i], fragment / 1000,
           compute / 1000, fragment / compute);
  }
  const GLenum error = glGetError();
  if (error != GL_NO_ERROR) {
    fprintf(stderr, "bench_gl_stages: GL error 0x%x\n", error);
    return 1;
  }
  return 0;
}
