// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ignored_settings.hpp"

#include "efconvert/backends/backend.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "common/said_once.hpp"
#include "settings.hpp"

namespace ef::gst {

namespace {

std::string nick_of(GType type, gint value) {
  auto *klass = static_cast<GEnumClass *>(g_type_class_ref(type));
  const GEnumValue *v = g_enum_get_value(klass, value);
  std::string nick = v ? v->value_nick : std::to_string(value);
  g_type_class_unref(klass);
  return nick;
}

std::string number_unless(guint value, guint fallback) {
  return value == fallback ? std::string() : std::to_string(value);
}

// A setting, its value where it is not the default ("" at the default),
// its bit in the registry entries' `honours`, and what the backends that
// honour it have that the others lack.
struct IgnorableSetting {
  const char *name;
  std::string (*value)(const Settings &);
  BackendSetting bit;
  const char *what;
};

const IgnorableSetting kSettings[] = {
    {"gl-shader",
     [](const Settings &s) {
       return s.gl_shader == GST_EF_CONVERT_GL_SHADER_AUTO
                  ? std::string()
                  : nick_of(GST_TYPE_EF_CONVERT_GL_SHADER, s.gl_shader);
     },
     kGlShader, "a shader stage"},
    {"readback-depth", [](const Settings &s) { return number_unless(s.readback_depth, 0); },
     kReadbackDepth, "frames read back"},
    {"gpu-timing",
     [](const Settings &s) { return s.gpu_timing ? std::string("true") : std::string(); },
     kGpuTiming, "GPU timer queries"},
    {"gl-contexts", [](const Settings &s) { return number_unless(s.gl_contexts, 0); }, kGlContexts,
     "a GL context to convert on"},
    {"n-threads", [](const Settings &s) { return number_unless(s.n_threads, 0); }, kNThreads,
     "threads of their own"},
};

bool honours(const IgnorableSetting &row, const char *backend) {
  const BackendEntry *e = backend_named(backend);
  return e && (e->honours & row.bit);
}

// "only the GL and CUDA backends have a GL context to convert on", from
// the entries that honour `row`.
std::string why_ignored(const IgnorableSetting &row) {
  std::vector<const char *> labels;
  for (const BackendEntry *e : backend_entries())
    if (e->honours & row.bit)
      labels.push_back(e->label);
  std::string names;
  for (size_t i = 0; i < labels.size(); ++i)
    names += std::string(i == 0 ? "" : i + 1 == labels.size() ? " and " : ", ") + labels[i];
  return "only the " + names + (labels.size() == 1 ? " backend has " : " backends have ") +
         row.what;
}

}  // namespace

std::vector<IgnoredSetting> ignored_settings(const Settings &settings, const char *backend) {
  std::vector<IgnoredSetting> ignored;
  for (const IgnorableSetting &row : kSettings) {
    const std::string value = row.value(settings);
    if (!value.empty() && !honours(row, backend))
      ignored.push_back({std::string(row.name) + "=" + value, why_ignored(row)});
  }
  return ignored;
}

void IgnoredSettingsWatch::check(GstElement *element, const Settings &settings,
                                 const ConvertBackend &backend) {
  const char *name = backend.name();
  if (settings.revision == revision_ && &backend == backend_ && name == name_)
    return;
  revision_ = settings.revision;
  backend_ = &backend;
  name_ = name;
  for (const IgnoredSetting &i : ignored_settings(settings, name)) {
    const std::string text =
        i.setting + " is ignored: the " + name + " backend is converting, and " + i.why;
    if (first_saying(element, text))
      GST_ELEMENT_WARNING(element, LIBRARY, SETTINGS, ("%s", text.c_str()),
                          ("backend-reason says why the %s backend runs", name));
  }
}

}  // namespace ef::gst
