// SPDX-License-Identifier: LGPL-2.1-or-later
// Which fds ef takes as frame memory (ef/fd_kind.hpp): dma-bufs, memfds and
// shared-memory files, on real fds where this machine has them; every other
// file is refused with a message that says what it is.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "ef/fd_kind.hpp"
#include "check_main.h"
#include "fd_helpers.hpp"

using namespace ef;
using ef::test::make_memfd;
using ef::test::ScopedFd;

namespace {

// The refusal of `fd`, which must say `what` and name the fd.
void expect_refused(int fd, const std::string &what) {
  auto kind = buffer_fd_kind(fd);
  ck_assert_msg(!kind.ok(), "fd %d (%s) was taken as a buffer", fd, what.c_str());
  ck_assert_int_eq(kind.error().code, EINVAL);
  const std::string expected = "fd " + std::to_string(fd) + " is " + what;
  ck_assert_msg(kind.error().message.rfind(expected, 0) == 0, "\"%s\" does not start \"%s\"",
                kind.error().message.c_str(), expected.c_str());
  ck_assert_msg(
      kind.error().message.find("not a dma-buf, memfd or shared-memory file") != std::string::npos,
      "%s", kind.error().message.c_str());
}

}  // namespace

START_TEST(test_memfd_and_shm_taken) {
  ScopedFd memfd = make_memfd("ef-kind", 4096);
  ck_assert_int_ge(memfd.get(), 0);
  ck_assert(*buffer_fd_kind(memfd.get()) == FdKind::Memfd);
  // Empty: still a memfd (what it holds is the importers' concern).
  ScopedFd empty(memfd_create("ef-kind-empty", MFD_CLOEXEC));
  ck_assert(*buffer_fd_kind(empty.get()) == FdKind::Memfd);
  const std::string name = "/ef-test-kind-" + std::to_string(getpid());
  ScopedFd shm(shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
  ck_assert_int_ge(shm.get(), 0);
  shm_unlink(name.c_str());
  ck_assert(*buffer_fd_kind(shm.get()) == FdKind::Shm);
}
END_TEST

START_TEST(test_dev_null_refused) {
  ScopedFd null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  expect_refused(null.get(), "a character device (/dev/null)");
}
END_TEST

START_TEST(test_disk_file_refused) {
  // The working folder: a build folder on disk.
  char path[] = "ef-test-kind-XXXXXX";
  ScopedFd file(mkstemp(path));
  ck_assert_int_ge(file.get(), 0);
  ck_assert_int_eq(ftruncate(file.get(), 4096), 0);
  char *full = realpath(path, nullptr);
  unlink(path);
  FdFacts facts = *read_fd_facts(file.get());
  const bool tmpfs = facts.fs_magic == TMPFS_MAGIC;
  expect_refused(
      file.get(),
      std::string(tmpfs ? "a tmpfs file outside /dev/shm" : "a regular file") + " (" + full);
  free(full);
}
END_TEST

START_TEST(test_pipe_socket_directory_refused) {
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  ScopedFd read_end(p[0]), write_end(p[1]);
  expect_refused(read_end.get(), "a pipe (pipe:[");
  int s[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
  ScopedFd one(s[0]), two(s[1]);
  expect_refused(one.get(), "a socket (socket:[");
  ScopedFd dir(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  expect_refused(dir.get(), "a directory (/)");
  // A tmpfs file outside /dev/shm, and an anonymous inode that is no dma-buf.
  FdFacts facts;
  facts.st_mode = S_IFREG | 0600;
  facts.fs_magic = TMPFS_MAGIC;
  facts.link = "/tmp/frame.raw";
  ck_assert_int_eq(buffer_fd_kind(facts).error().code, EINVAL);
  facts.st_mode = 0600;
  facts.fs_magic = 0x09041934;  // ANON_INODE_FS_MAGIC
  facts.link = "anon_inode:[eventfd]";
  ck_assert_int_eq(buffer_fd_kind(facts).error().code, EINVAL);
}
END_TEST

START_TEST(test_closed_fd) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  close(fd);
  ck_assert_int_eq(buffer_fd_kind(fd).error().code, EBADF);
  ck_assert_int_eq(buffer_fd_kind(-1).error().code, EBADF);
}
END_TEST

// Kernels this machine does not run: a dma-buf (its own filesystem) and a
// pre-5.3 dma-buf (one anonymous inode for all) are both dma-bufs.
START_TEST(test_dmabuf_facts) {
  FdFacts facts;
  facts.st_mode = S_IFREG | 0600;
  facts.fs_magic = 0x444d4142;  // DMA_BUF_MAGIC
  facts.link = "/dmabuf:";
  ck_assert(*buffer_fd_kind(facts) == FdKind::DmaBuf);
  facts.st_mode = 0600;
  facts.fs_magic = 0x09041934;
  facts.link = "anon_inode:dmabuf";
  ck_assert(*buffer_fd_kind(facts) == FdKind::SharedDmaBuf);
}
END_TEST

static Suite *fd_kind_suite() {
  Suite *s = suite_create("fd_kind");
  TCase *tc = tcase_create("fd_kind");
  tcase_add_test(tc, test_memfd_and_shm_taken);
  tcase_add_test(tc, test_dev_null_refused);
  tcase_add_test(tc, test_disk_file_refused);
  tcase_add_test(tc, test_pipe_socket_directory_refused);
  tcase_add_test(tc, test_closed_fd);
  tcase_add_test(tc, test_dmabuf_facts);
  suite_add_tcase(s, tc);
  return s;
}

int main() {
  return ef::test::run_suite(fd_kind_suite());
}
