// SPDX-License-Identifier: LGPL-2.1-or-later
// The same goldens, compiled as C++.
#define _Alignof alignof
#include "test_layout_goldens.c"
