#version 450
// A position-weighted sum of one plane's bytes, the same as
// frame_pattern.cpp's cpu_checksum(): any byte out of place changes it.
// Only the frame's width x height texels count: the image may be wider
// (its width is the row pitch in texels).
layout(local_size_x = 16, local_size_y = 16) in;

layout(binding = 0) uniform sampler2D plane;
layout(std430, binding = 1) buffer Result {
  uint sum;
};
layout(push_constant) uniform Params {
  uint width;
  uint height;
  uint components;  // bytes per texel: 1 (R8), 2 (RG8), 4 (RGBA8)
  uint swap_rb;     // BGRA8: texelFetch returns RGBA, the bytes are BGRA
};

shared uint partial;

void main() {
  if (gl_LocalInvocationIndex == 0)
    partial = 0;
  barrier();
  const uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x < width && p.y < height) {
    vec4 t = texelFetch(plane, ivec2(p), 0);
    if (swap_rb != 0)
      t = t.bgra;
    const uvec4 bytes = uvec4(round(t * 255.0));
    uint s = 0;
    for (uint c = 0; c < components; ++c)
      s += bytes[c] * (1u + ((p.x * components + c + p.y * 31u) & 255u));
    atomicAdd(partial, s);
  }
  barrier();
  if (gl_LocalInvocationIndex == 0)
    atomicAdd(sum, partial);
}
