// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpu_device.hpp"

#include <dirent.h>

#include <cstring>
#include <string_view>

namespace ef::gst {

namespace {

// The first entry of `dir` whose name starts with `prefix` and goes on
// with a digit: renderD128, nvidia0 (not nvidiactl, nvidia-uvm).
std::string numbered_entry(const std::string &dir, std::string_view prefix) {
  DIR *d = opendir(dir.c_str());
  if (!d)
    return {};
  std::string found;
  while (const dirent *e = readdir(d)) {
    const std::string_view name = e->d_name;
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
        name[prefix.size()] >= '0' && name[prefix.size()] <= '9') {
      found = dir + "/" + e->d_name;
      break;
    }
  }
  closedir(d);
  return found;
}

}  // namespace

std::string gpu_device_node(const std::string &dev) {
  std::string node = numbered_entry(dev + "/dri", "renderD");
  return node.empty() ? numbered_entry(dev, "nvidia") : node;
}

bool gl_may_be_hardware(const char *forced, std::string &why, const std::string &dev) {
  for (const char *kind : {"hardware", "software"})
    if (forced && std::strcmp(forced, kind) == 0) {
      why = std::string("EF_GL_RENDERER_KIND=") + kind;
      return kind[0] == 'h';
    }
  const std::string node = gpu_device_node(dev);
  why = node.empty() ? "no GPU device (no " + dev + "/dri/renderD*, " + dev + "/nvidia*)"
                     : "a GPU device, " + node;
  return !node.empty();
}

}  // namespace ef::gst
