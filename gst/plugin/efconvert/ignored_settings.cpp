// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ignored_settings.hpp"

#include <cstring>
#include <initializer_list>

#include "backend.hpp"
#include "common/said_once.hpp"
#include "convert_state.hpp"

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
// and the backends (ConvertBackend::name()) that honour it.
struct BackendSetting {
  const char *name;
  std::string (*value)(const Settings &);
  std::initializer_list<const char *> honoured_by;
  const char *why;  // why the others ignore it
};

const BackendSetting kSettings[] = {
    {"gl-shader",
     [](const Settings &s) {
       return s.gl_shader == GST_EF_CONVERT_GL_SHADER_AUTO
                  ? std::string()
                  : nick_of(GST_TYPE_EF_CONVERT_GL_SHADER, s.gl_shader);
     },
     {"gl"},
     "only the GL backend has a shader stage"},
    {"readback-depth",
     [](const Settings &s) { return number_unless(s.readback_depth, 0); },
     {"gl"},
     "only the GL backend reads frames back"},
    {"gpu-timing",
     [](const Settings &s) { return s.gpu_timing ? std::string("true") : std::string(); },
     {"gl"},
     "only the GL backend runs GPU timer queries"},
    // The CUDA backend's GL-memory output runs on that context too.
    {"gl-contexts",
     [](const Settings &s) { return number_unless(s.gl_contexts, 0); },
     {"gl", "cuda"},
     "only the GL and CUDA backends convert on a GL context"},
    {"n-threads",
     [](const Settings &s) { return number_unless(s.n_threads, 0); },
     {"cpu"},
     "only the CPU backend converts on threads of its own"},
};

bool honours(const BackendSetting &row, const char *backend) {
  for (const char *b : row.honoured_by)
    if (std::strcmp(b, backend) == 0)
      return true;
  return false;
}

}  // namespace

std::vector<IgnoredSetting> ignored_settings(const Settings &settings, const char *backend) {
  std::vector<IgnoredSetting> ignored;
  for (const BackendSetting &row : kSettings) {
    const std::string value = row.value(settings);
    if (!value.empty() && !honours(row, backend))
      ignored.push_back({std::string(row.name) + "=" + value, row.why});
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
