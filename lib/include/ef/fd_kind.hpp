// SPDX-License-Identifier: LGPL-2.1-or-later
// Which files ef takes as frame memory: dma-bufs, memfds and shared-memory
// files (POSIX shm, /dev/shm), nothing else. A character device such as
// /dev/null, a disk file, a pipe or a socket handed over as a frame's fd is
// not a buffer: every frame in /dev/null has the same inode, a disk file's
// bytes are not the producer's memory, a pipe cannot be mapped. The rule is
// applied to every fd an element is given, before anything maps or imports it.
#pragma once

#include <string>

#include "ef/identity.hpp"
#include "ef/result.hpp"

namespace ef {

enum class FdKind {
  DmaBuf,        // a dma-buf with an inode of its own (Linux 5.3 and later)
  SharedDmaBuf,  // a dma-buf of a pre-5.3 kernel: every one shares one anonymous inode
  Memfd,         // memfd_create(), on tmpfs or hugetlbfs
  Shm,           // a file of /dev/shm (shm_open())
};

// The kind of buffer `facts` describe, or EINVAL whose message says what the
// file is instead, for example "a character device (/dev/null), not a
// dma-buf, memfd or shared-memory file".
Result<FdKind> buffer_fd_kind(const FdFacts &facts);

// read_fd_facts() then buffer_fd_kind(); the message names the fd:
// "fd 0 is a character device (/dev/null), not a dma-buf, memfd or
// shared-memory file". EBADF for a closed fd.
Result<FdKind> buffer_fd_kind(int fd);

}  // namespace ef
