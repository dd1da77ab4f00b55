// SPDX-License-Identifier: LGPL-2.1-or-later
// The registry's one list: a backend is here where it is built. A new
// backend is a folder that defines its entry, and a line below.
#include "backend_registry.hpp"

#include <cstring>

namespace ef::gst {

const BackendEntry &cpu_backend_entry();
#ifdef EF_HAVE_GSTGL
const BackendEntry &gl_backend_entry();
#endif
#ifdef EF_HAVE_CUDA
const BackendEntry &cuda_backend_entry();
#endif
#ifdef EF_TEST_COPY_BACKEND
const BackendEntry &copy_backend_entry();  // tests/gst/copy_backend: the test build's
#endif

const std::vector<const BackendEntry *> &backend_entries() {
  static const std::vector<const BackendEntry *> entries = {
      &cpu_backend_entry(),
#ifdef EF_HAVE_GSTGL
      &gl_backend_entry(),
#endif
#ifdef EF_HAVE_CUDA
      &cuda_backend_entry(),
#endif
#ifdef EF_TEST_COPY_BACKEND
      &copy_backend_entry(),
#endif
  };
  return entries;
}

}  // namespace ef::gst
