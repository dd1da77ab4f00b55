// SPDX-License-Identifier: LGPL-2.1-or-later
// GLSL of the GL backend, written once for GLSL 330 and GLSL ES 300: the
// caller prepends "#version" and the #defines of a variant. The pass is a
// fragment shader, or with COMPUTE the same code as a compute shader
// (GLSL 430, ES 310) that stores its texels with imageStore.
//   SOURCE_DIRECT / SOURCE_SEMI_PLANAR / SOURCE_PLANAR / SOURCE_PACKED_422
//   LUMA, CHROMA   texture channels of Y and of chroma (SOURCE_PACKED_422);
//                  LUMA_COMPONENT the index of LUMA
//   ONE_CHANNEL    SOURCE_DIRECT of one channel (GRAY8: R8)
//   NEAREST        the source pixel under the point instead of bilinear
//   GATHER         textureGather available (GLSL 400, ES 310)
//   BPP            bytes a pixel of the output plane: 1, 3 or 4
//   TEXEL_BYTES    4: RGBA8 texels, bytes 4i..4i+3 of a row in texel i's R, G,
//                  B, A; 1: R8 texels, one a byte
//   FILL           writes the fill colour (borders) instead of sampling
//   PLANES         a planar output (BPP 1) in one pass: byte p of a pixel's
//                  bytes goes to draw buffer p, the texture of plane p
//   BOX            a box over each output pixel's footprint (gl_layout.hpp
//                  kBoxFrom) along the source axes where BOX_X, BOX_Y (the
//                  luma or whole pixels) and BOX_CX, BOX_CY (chroma, in its
//                  own samples) are not 0: that many steps of two texels,
//                  a number or u_box's (a count past what is worth
//                  unrolling)
//   COMPUTE        a compute shader over the texels of u_origin..u_end,
//                  writing image units 0 (and 1, 2 with PLANES): RGBA8
//                  texels only (TEXEL_BYTES 4), whole texels only; with
//                  BPP 3, three texels (four pixels) an invocation
//   TENSOR         with COMPUTE: the output is a tensor in a buffer object
//                  (kTensorOutput, appended after kPassShader), not texels
#pragma once

namespace ef::gst::gl {

// A single triangle covering the viewport, from gl_VertexID: no vertex
// buffer; the scissor box picks which pixels a draw writes.
inline constexpr char kVertexShader[] = R"(
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

inline constexpr char kPassShader[] = R"(
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D u_tex0;
uniform sampler2D u_tex1;
uniform sampler2D u_tex2;
uniform vec2 u_inv_size0;     // 1 / size of plane 0
uniform vec2 u_inv_size1;     // 1 / size of the chroma planes
uniform vec4 u_chroma;        // chroma coordinate = luma coordinate * xy + zw
uniform ivec2 u_chroma_last;  // last chroma texel (SEMI_PLANAR, PLANAR)
uniform ivec2 u_packed;       // PACKED_422: height, last chroma sample

// Output pixel centre -> source point (pixels, edges at integers).
uniform vec2 u_map_x;
uniform vec2 u_map_y;
uniform vec2 u_map_o;
uniform vec4 u_clamp;  // points stay between the crop's edge pixel centres

// The output plane being drawn: byte b of a pixel is
// clamp(dot(u_bytes[b], sample) + u_const[b]), sample = (Y, U, V, 1) or the
// source texel; the colour matrix, channel order and padding are in them.
uniform float u_row0;  // first row of the plane in the target
uniform vec4 u_bytes[4];
uniform vec4 u_const;

#ifdef COMPUTE
// 64 invocations: a multiple of every GPU's warp or wavefront.
layout(local_size_x = 16, local_size_y = 4) in;
layout(rgba8, binding = 0) writeonly uniform highp image2D u_out0;
#ifdef PLANES
layout(rgba8, binding = 1) writeonly uniform highp image2D u_out1;
layout(rgba8, binding = 2) writeonly uniform highp image2D u_out2;
#endif
uniform ivec2 u_origin;  // the first texel of the dispatch
uniform ivec2 u_end;     // one past its last
#elif defined(PLANES)
layout(location = 0) out vec4 o_color;
layout(location = 1) out vec4 o_plane1;
layout(location = 2) out vec4 o_plane2;
#else
out vec4 o_color;
#endif

#ifndef FILL
vec2 luma_point(vec2 centre) {
  vec2 p = clamp(u_map_x * centre.x + u_map_y * centre.y + u_map_o, u_clamp.xy, u_clamp.zw);
#ifdef NEAREST
  // Exact where the content is the crop at 1:1: p is then a pixel centre.
  p = floor(p) + 0.5;
#endif
  return p;
}

#ifdef SOURCE_PACKED_422
// The frame's width, or one pixel more: the padding pixel of an odd width,
// which holds the last V (gl_converter.hpp).
int packed_width() {
  return textureSize(u_tex0, 0).x;
}
#endif

vec4 plane0(vec2 p) {
#ifdef NEAREST
  return texelFetch(u_tex0, ivec2(p), 0);
#else
  // An explicit level: llvmpipe skips the derivatives and the LOD.
#ifdef SOURCE_PACKED_422
  return textureLod(u_tex0, p / vec2(float(packed_width()), float(u_packed.x)), 0.0);
#else
  return textureLod(u_tex0, p * u_inv_size0, 0.0);
#endif
#endif
}

vec2 chroma_point(vec2 luma) {
  return luma * u_chroma.xy + u_chroma.zw;
}

// Chroma is interpolated between its samples also under NEAREST (as
// GstVideoConverter upsamples it before scaling), in float from the four
// texels around the point: llvmpipe's GL_LINEAR on RG8 costs more and
// rounds to 8 bits.
#ifdef GATHER
float gathered(vec4 g, vec2 f) {
  return mix(mix(g.w, g.z, f.x), mix(g.x, g.y, f.x), f.y);
}
#else
vec4 bilinear(sampler2D tex, ivec2 lo, ivec2 hi, vec2 f) {
  vec4 top = mix(texelFetch(tex, lo, 0), texelFetch(tex, ivec2(hi.x, lo.y), 0), f.x);
  vec4 bottom = mix(texelFetch(tex, ivec2(lo.x, hi.y), 0), texelFetch(tex, hi, 0), f.x);
  return mix(top, bottom, f.y);
}
#endif

#if defined(SOURCE_SEMI_PLANAR) || defined(SOURCE_PLANAR)
// U and V at a point of the chroma planes (chroma texels, edges at
// integers): from an RG8 plane or from two R8 planes.
vec2 chroma_at(vec2 c) {
  vec2 t = c - 0.5;
  vec2 f = fract(t);
#ifdef GATHER
  // The 2x2 footprint of this point starts at texel floor(t); the sampler
  // clamps it to the edges.
  vec2 g = (floor(t) + 1.0) * u_inv_size1;
#if defined(SOURCE_SEMI_PLANAR)
  return vec2(gathered(textureGather(u_tex1, g, 0), f), gathered(textureGather(u_tex1, g, 1), f));
#else
  return vec2(gathered(textureGather(u_tex1, g, 0), f), gathered(textureGather(u_tex2, g, 0), f));
#endif
#else
  ivec2 i = ivec2(floor(t));
  ivec2 lo = clamp(i, ivec2(0), u_chroma_last);
  ivec2 hi = clamp(i + 1, ivec2(0), u_chroma_last);
#if defined(SOURCE_SEMI_PLANAR)
  return bilinear(u_tex1, lo, hi, f).rg;
#else
  return vec2(bilinear(u_tex1, lo, hi, f).r, bilinear(u_tex2, lo, hi, f).r);
#endif
#endif
}

// U and V at a luma point.
vec2 chroma(vec2 luma) {
  return chroma_at(chroma_point(luma));
}
#endif

#if defined(SOURCE_DIRECT)
vec4 fetch(vec2 centre) {
  return plane0(luma_point(centre));
}
#elif defined(SOURCE_SEMI_PLANAR) || defined(SOURCE_PLANAR)
vec4 fetch(vec2 centre) {
  vec2 p = luma_point(centre);
  return vec4(plane0(p).r, chroma(p), 1.0);
}
#elif defined(SOURCE_PACKED_422)
// Chroma sample k of a row: U in texel 2k, V in texel 2k + 1. A texture as
// wide as an odd width (GstGL's) lacks the last V: the previous one stands
// in.
vec2 chroma_sample(int k, int row) {
  int v = 2 * k + 1;
  if (v >= packed_width())
    v -= 2;
  float cb = texelFetch(u_tex0, ivec2(2 * k, row), 0).CHROMA;
  float cr = v >= 0 ? texelFetch(u_tex0, ivec2(v, row), 0).CHROMA : 128.0 / 255.0;
  return vec2(cb, cr);
}

// Linear between the two chroma samples around chroma coordinate x.
vec2 chroma_row(float x, int row) {
  float c = x - 0.5;
  float k = floor(c);
  int a = clamp(int(k), 0, u_packed.y);
  int b = clamp(int(k) + 1, 0, u_packed.y);
  return mix(chroma_sample(a, row), chroma_sample(b, row), c - k);
}

// U and V at a point of the chroma samples (x in chroma samples, y in
// rows, edges at integers), linear between rows.
vec2 chroma_at(vec2 c) {
  float y = c.y - 0.5;
  float r = floor(y);
  int top = clamp(int(r), 0, u_packed.x - 1);
  int bottom = clamp(int(r) + 1, 0, u_packed.x - 1);
  return mix(chroma_row(c.x, top), chroma_row(c.x, bottom), y - r);
}

vec4 fetch(vec2 centre) {
  vec2 p = luma_point(centre);
#ifdef NEAREST
  vec2 uv = chroma_row(chroma_point(p).x, int(p.y));
#else
  vec2 uv = chroma_at(chroma_point(p));
#endif
  return vec4(plane0(p).LUMA, uv, 1.0);
}
#endif
#endif

#if !defined(FILL) && defined(BOX)
// A strong reduction: the mean of the source over the output pixel's
// footprint, a rectangle along the source's axes (the map turns it with the
// content), its edges cutting texels, which weigh what it covers of them.
// Texels two by two along each axis, a 2x2 block a step (pair_sum). An
// axis without a box (count 0) takes one bilinear sample at the
// footprint's centre.
uniform vec2 u_half;   // half the footprint in source pixels, along source x and y
uniform vec4 u_edges;  // the crop's edges in source pixels: x0, y0, x1, y1
uniform ivec4 u_box;   // the counts BOX_* name here: luma x, y, chroma x, y

// Sample t of an axis of n: texels k and k + 1 (texels, edges at
// integers) and their weights, (k, a, b). A box [r.x, r.y) takes texels
// floor(r.x) + 2t and the next, weighed by what it covers of them; no box
// (n = 0), the two around the point r.x, linearly.
vec3 axis_sample(vec2 r, int n, int t) {
  if (n == 0) {
    float k = floor(r.x - 0.5);
    float f = r.x - 0.5 - k;
    return vec3(k, 1.0 - f, f);
  }
  float k = floor(r.x) + float(2 * t);
  float a = clamp(min(r.y, k + 1.0) - max(r.x, k), 0.0, 1.0);
  float b = clamp(min(r.y, k + 2.0) - max(r.x, k + 1.0), 0.0, 1.0);
  return vec3(k, a, b);
}

// The point between an axis sample's two texels that a bilinear fetch
// weighs as the sample does, and their weight together.
vec2 bilinear_point(vec3 s) {
  float w = s.y + s.z;
  return vec2(s.x + 0.5 + (w > 0.0 ? s.z / w : 0.0), w);
}

// The weights of a 2x2 block of texels as textureGather orders them: (k,
// l + 1), (k + 1, l + 1), (k + 1, l), (k, l).
vec4 gather_weights(vec3 sx, vec3 sy) {
  return vec4(sx.y * sy.z, sx.z * sy.z, sx.z * sy.y, sx.y * sy.y);
}

// The weighted sum of the 2x2 texels of samples sx, sy: part 0 of the
// source (whole pixels, or luma where chroma is apart) in plane 0, part 1
// (chroma, in y and z) in the chroma samples. A bilinear fetch weighs two
// texels as a sample does (up to the sampler's precision: llvmpipe rounds
// each step of its filter to 8 bits, a bias of up to half a level); a
// single-channel plane, where gathers are, is summed exactly from a gather.
vec4 pair_sum(vec3 sx, vec3 sy, int part) {
  vec2 x = bilinear_point(sx), y = bilinear_point(sy);
  vec2 p = vec2(x.x, y.x);
  float w = x.y * y.y;
#if defined(SOURCE_DIRECT) && defined(GATHER) && defined(ONE_CHANNEL)
  vec2 g = vec2(sx.x + 1.0, sy.x + 1.0) * u_inv_size0;
  return vec4(dot(textureGather(u_tex0, g, 0), gather_weights(sx, sy)), 0.0, 0.0, w);
#elif defined(SOURCE_DIRECT)
  return w * plane0(p);
#elif defined(SOURCE_PACKED_422)
  if (part != 0)
    return w * vec4(0.0, chroma_at(p), 0.0);
#ifdef GATHER
  vec2 g = vec2(sx.x + 1.0, sy.x + 1.0) / vec2(float(packed_width()), float(u_packed.x));
  return vec4(dot(textureGather(u_tex0, g, LUMA_COMPONENT), gather_weights(sx, sy)), 0.0, 0.0,
              0.0);
#else
  return w * vec4(plane0(p).LUMA, 0.0, 0.0, 0.0);
#endif
#else
  if (part == 0) {
#ifdef GATHER
    vec2 g = vec2(sx.x + 1.0, sy.x + 1.0) * u_inv_size0;
    return vec4(dot(textureGather(u_tex0, g, 0), gather_weights(sx, sy)), 0.0, 0.0, 0.0);
#else
    return w * vec4(plane0(p).r, 0.0, 0.0, 0.0);
#endif
  }
#ifdef GATHER
  vec2 g = vec2(sx.x + 1.0, sy.x + 1.0) * u_inv_size1;
  vec4 gw = gather_weights(sx, sy);
#if defined(SOURCE_SEMI_PLANAR)
  return vec4(0.0, dot(textureGather(u_tex1, g, 0), gw), dot(textureGather(u_tex1, g, 1), gw), 0.0);
#else
  return vec4(0.0, dot(textureGather(u_tex1, g, 0), gw), dot(textureGather(u_tex2, g, 0), gw), 0.0);
#endif
#else
  // The sampler's own bilinear fetch: one for both of an RG8 plane.
  vec2 t = p * u_inv_size1;
#if defined(SOURCE_SEMI_PLANAR)
  return w * vec4(0.0, textureLod(u_tex1, t, 0.0).rg, 0.0);
#else
  return w * vec4(0.0, textureLod(u_tex1, t, 0.0).r, textureLod(u_tex2, t, 0.0).r, 0.0);
#endif
#endif
#endif
}

// The weighted mean of nx x ny samples over rx x ry. Summed a row at a
// time: a float sum of half a million like terms (a 1080p frame into one
// pixel) rounds each addition the same way, half a level off in the end.
vec4 box_mean(vec2 rx, vec2 ry, int nx, int ny, int part) {
  vec4 sum = vec4(0.0);
  float total = 0.0;
  for (int j = 0; j < max(ny, 1); ++j) {
    vec3 sy = axis_sample(ry, ny, j);
    vec4 row = vec4(0.0);
    float weight = 0.0;
    for (int i = 0; i < max(nx, 1); ++i) {
      vec3 sx = axis_sample(rx, nx, i);
      row += pair_sum(sx, sy, part);
      weight += sx.y + sx.z;
    }
    sum += row;
    total += weight * (sy.y + sy.z);
  }
  return sum / max(total, 1e-30);
}

// Along each axis: the box [lo, hi), or the point p.
vec2 axis_range(float lo, float hi, float p, int n) {
  return n == 0 ? vec2(p) : vec2(lo, hi);
}

vec4 filtered(vec2 centre) {
  vec2 c = u_map_x * centre.x + u_map_y * centre.y + u_map_o;
  vec2 lo = max(c - u_half, u_edges.xy);
  vec2 hi = min(c + u_half, u_edges.zw);
  vec2 p = luma_point(centre);
  vec4 s = box_mean(axis_range(lo.x, hi.x, p.x, BOX_X), axis_range(lo.y, hi.y, p.y, BOX_Y), BOX_X,
                    BOX_Y, 0);
#if defined(SOURCE_DIRECT)
  return s;
#else
  // Chroma over the same footprint in its own samples; beyond its last
  // sample (a cosited plane's edge) the edge sample stands, as a clamped
  // fetch gives it.
  vec2 clo = chroma_point(lo), chi = chroma_point(hi), cp = chroma_point(p);
  vec4 uv = box_mean(axis_range(clo.x, chi.x, cp.x, BOX_CX), axis_range(clo.y, chi.y, cp.y, BOX_CY),
                     BOX_CX, BOX_CY, 1);
  return vec4(s.x, uv.yz, 1.0);
#endif
}
#endif

// The bytes of output pixel px (x in pixels, y in rows of the plane),
// unclamped.
vec4 pixel_bytes(vec2 px) {
#ifdef FILL
  vec4 s = vec4(0.0);
#elif defined(BOX)
  vec4 s = filtered(px + 0.5);
#else
  vec4 s = fetch(px + 0.5);
#endif
  return vec4(dot(u_bytes[0], s), dot(u_bytes[1], s), dot(u_bytes[2], s), dot(u_bytes[3], s)) +
         u_const;
}

// Each distinct pixel under a texel is sampled once: the sampling is what
// costs on llvmpipe. The texel at `frag` of the target: o_color, and with
// PLANES o_plane1 and o_plane2, the texels at `frag` of planes 1 and 2.
void shade(ivec2 frag, out vec4 o_color, out vec4 o_plane1, out vec4 o_plane2) {
  o_plane1 = vec4(0.0);
  o_plane2 = vec4(0.0);
  float row = float(frag.y) - u_row0;
#if defined(PLANES)
  // One sample a pixel serves all three planes; per-plane passes would
  // sample and convert the source three times.
#if TEXEL_BYTES == 1
  vec4 v = clamp(pixel_bytes(vec2(float(frag.x), row)), 0.0, 1.0);
  o_color = vec4(v.x);
  o_plane1 = vec4(v.y);
  o_plane2 = vec4(v.z);
#else
  float x = float(frag.x * 4);
  vec4 a = clamp(pixel_bytes(vec2(x, row)), 0.0, 1.0);
  vec4 b = clamp(pixel_bytes(vec2(x + 1.0, row)), 0.0, 1.0);
  vec4 c = clamp(pixel_bytes(vec2(x + 2.0, row)), 0.0, 1.0);
  vec4 d = clamp(pixel_bytes(vec2(x + 3.0, row)), 0.0, 1.0);
  o_color = vec4(a.x, b.x, c.x, d.x);
  o_plane1 = vec4(a.y, b.y, c.y, d.y);
  o_plane2 = vec4(a.z, b.z, c.z, d.z);
#endif
#elif TEXEL_BYTES == 1
  // Texel x is byte x % BPP of pixel x / BPP.
  int x = frag.x / BPP;
  int b = frag.x - x * BPP;
  vec4 bytes = pixel_bytes(vec2(float(x), row));
  // All four candidates, then a select: cheaper on llvmpipe than indexing
  // the uniform array with a per-fragment index.
  float v = b == 0 ? bytes.x : b == 1 ? bytes.y : b == 2 ? bytes.z : bytes.w;
  o_color = vec4(clamp(v, 0.0, 1.0));
#elif BPP == 4
  o_color = clamp(pixel_bytes(vec2(float(frag.x), row)), 0.0, 1.0);
#elif BPP == 1
  float x = float(frag.x * 4);
  o_color = clamp(vec4(pixel_bytes(vec2(x, row)).x, pixel_bytes(vec2(x + 1.0, row)).x,
                       pixel_bytes(vec2(x + 2.0, row)).x, pixel_bytes(vec2(x + 3.0, row)).x),
                  0.0, 1.0);
#else
  // BPP 3: bytes 4x..4x+3 begin at byte 4x % 3 of pixel 4x / 3 and end in
  // the pixel after it.
  int i = frag.x * 4;
  int p = i / 3;
  int b = i - p * 3;
  vec4 a = pixel_bytes(vec2(float(p), row));
  vec4 n = pixel_bytes(vec2(float(p + 1), row));
  vec4 v = b == 0 ? vec4(a.xyz, n.x) : b == 1 ? vec4(a.yz, n.xy) : vec4(a.z, n.xyz);
  o_color = clamp(v, 0.0, 1.0);
#endif
}

#if defined(TENSOR)
// main() is the tensor's (kTensorOutput).
#elif defined(COMPUTE) && BPP == 3 && TEXEL_BYTES == 4
// Four pixels are three texels: an invocation converts pixels 4q..4q+3 and
// stores texels 3q..3q+2 (those inside u_origin.x..u_end.x), so that each
// pixel is sampled once, where a texel at a time samples two.
void main() {
  int q = u_origin.x / 3 + int(gl_GlobalInvocationID.x);
  int y = u_origin.y + int(gl_GlobalInvocationID.y);
  if (3 * q >= u_end.x || y >= u_end.y)
    return;
  float row = float(y) - u_row0;
  float x = float(4 * q);
  vec4 a = clamp(pixel_bytes(vec2(x, row)), 0.0, 1.0);
  vec4 b = clamp(pixel_bytes(vec2(x + 1.0, row)), 0.0, 1.0);
  vec4 c = clamp(pixel_bytes(vec2(x + 2.0, row)), 0.0, 1.0);
  vec4 d = clamp(pixel_bytes(vec2(x + 3.0, row)), 0.0, 1.0);
  vec4 texels[3] = vec4[3](vec4(a.xyz, b.x), vec4(b.yz, c.xy), vec4(c.z, d.xyz));
  for (int i = 0; i < 3; ++i) {
    int t = 3 * q + i;
    if (t >= u_origin.x && t < u_end.x)
      imageStore(u_out0, ivec2(t, y), texels[i]);
  }
}
#elif defined(COMPUTE)
void main() {
  ivec2 frag = u_origin + ivec2(gl_GlobalInvocationID.xy);
  if (frag.x >= u_end.x || frag.y >= u_end.y)
    return;
  vec4 c0, c1, c2;
  shade(frag, c0, c1, c2);
  imageStore(u_out0, frag, c0);
#ifdef PLANES
  imageStore(u_out1, frag, c1);
  imageStore(u_out2, frag, c2);
#endif
}
#else
void main() {
#ifdef PLANES
  shade(ivec2(gl_FragCoord.xy), o_color, o_plane1, o_plane2);
#else
  vec4 unused1, unused2;  // planes 1 and 2: none to draw into
  shade(ivec2(gl_FragCoord.xy), o_color, unused1, unused2);
#endif
}
#endif
)";

// ---------------------------------------------------------------------
// The tensor: the output side of the compute pass, after kPassShader,
// whose pixel_bytes() gives each pixel's bytes of an RGB, BGR or GRAY8
// frame (in the tensor's channel order), unrounded. A float tensor takes
// them as they are, (x - mean) / std in float: what lies between two
// 8-bit levels stays. An int8 or uint8 tensor rounds them to the frame's
// 8-bit levels, each through a table every backend shares
// (tensor_values.hpp). The values go into a buffer object as whole 32-bit
// words (gl_tensor_words.hpp):
//   TENSOR_BYTES     bytes of an element: 4 (float32), 2 (float16), 1
//   TENSOR_CHANNELS  3 or 1
//   TENSOR_PLANAR    NCHW of three channels: a plane per channel
// An invocation converts TENSOR_PIXELS = 4 / TENSOR_BYTES consecutive
// pixels of the tensor (row order, across rows) and stores their words:
// TENSOR_CHANNELS words in order (NHWC, one channel), or one word in each
// channel's plane (NCHW).
inline constexpr char kTensorOutput[] = R"(
#define TENSOR_PIXELS (4 / TENSOR_BYTES)
layout(std430, binding = 0) writeonly buffer TensorWords { uint t_words[]; };
#if TENSOR_BYTES == 1
// [channel * 256 + level]: the value's byte.
layout(std430, binding = 1) readonly buffer TensorValues { uint t_values[]; };
#else
uniform vec3 u_mean;  // per channel, the tensor's order
uniform vec3 u_std;
#endif
uniform ivec2 u_size;         // the tensor's width and height
uniform ivec4 u_content;      // the picture: x, y, w, h; the rest is border
uniform vec4 u_fill_levels;   // the border's 8-bit levels, tensor channel order
uniform int u_plane_words;    // words from one channel's plane to the next

// Pixel p (row order) in 8-bit units, the tensor's channel order,
// unrounded; the border's levels.
vec3 pixel_levels(int p) {
  ivec2 xy = ivec2(p % u_size.x, p / u_size.x);
  if (all(greaterThanEqual(xy, u_content.xy)) && all(lessThan(xy, u_content.xy + u_content.zw)))
    return clamp(pixel_bytes(vec2(xy)), 0.0, 1.0).xyz * 255.0;
  return u_fill_levels.xyz;
}

#if TENSOR_BYTES == 1
// Channel c's value of pixel p: its 8-bit level rounded as an RGBA8 store
// rounds it, to nearest, half to even (llvmpipe; GL leaves the tie to the
// implementation; ties are common: a bilinear sample halfway between two
// bytes is one), through the table.
uint value_bits(vec3 levels, int c) {
  return t_values[c * 256 + int(roundEven(levels[c]))];
}
#else
// Channel c's value of pixel p: (x - mean) / std, a float32's bits or a
// float16's (in the low bits).
uint value_bits(vec3 levels, int c) {
  float v = (levels[c] - u_mean[c]) / u_std[c];
#if TENSOR_BYTES == 4
  return floatBitsToUint(v);
#else
  return packHalf2x16(vec2(v, 0.0)) & 0xffffu;
#endif
}
#endif

// Values of TENSOR_BYTES bytes, lowest first, into one word.
uint word_of(uint a, uint b, uint c, uint d) {
#if TENSOR_BYTES == 4
  return a;
#elif TENSOR_BYTES == 2
  return a | (b << 16);
#else
  return a | (b << 8) | (c << 16) | (d << 24);
#endif
}

void main() {
  int k = int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
              gl_GlobalInvocationID.x);
  int first = k * TENSOR_PIXELS;
  int pixels = u_size.x * u_size.y;
  if (first >= pixels)
    return;
  // v[c][i]: channel c of pixel first + i (0 past the tensor's last).
  uint v[TENSOR_CHANNELS * 4];
  for (int i = 0; i < TENSOR_PIXELS; ++i) {
    vec3 l = first + i < pixels ? pixel_levels(first + i) : vec3(0.0);
    for (int c = 0; c < TENSOR_CHANNELS; ++c)
      v[c * 4 + i] = first + i < pixels ? value_bits(l, c) : 0u;
  }
#ifdef TENSOR_PLANAR
  for (int c = 0; c < 3; ++c)
    t_words[c * u_plane_words + k] = word_of(v[c * 4], v[c * 4 + 1], v[c * 4 + 2], v[c * 4 + 3]);
#else
  // The values in memory order: pixel after pixel, channels within each.
  uint m[TENSOR_CHANNELS * 4];
  for (int i = 0; i < TENSOR_PIXELS; ++i)
    for (int c = 0; c < TENSOR_CHANNELS; ++c)
      m[i * TENSOR_CHANNELS + c] = v[c * 4 + i];
  for (int w = 0; w < TENSOR_CHANNELS; ++w) {
    int at = w * TENSOR_PIXELS;
    t_words[k * TENSOR_CHANNELS + w] = word_of(m[at], m[min(at + 1, TENSOR_CHANNELS * 4 - 1)],
                                               m[min(at + 2, TENSOR_CHANNELS * 4 - 1)],
                                               m[min(at + 3, TENSOR_CHANNELS * 4 - 1)]);
  }
#endif
}
)";

}  // namespace ef::gst::gl
