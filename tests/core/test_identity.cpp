// SPDX-License-Identifier: LGPL-2.1-or-later
// Identity derivation: goldens that pin the formula, and the rules of design
// brief §2 checked on real fds.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ef/identity.hpp"
#include "check_main.h"
#include "fd_helpers.hpp"

using namespace ef;
using ef::test::make_memfd;
using ef::test::ScopedFd;

// The fd's inode key, (st_dev << 32) ^ st_ino, from fstat here rather than
// from inode_key(), so the tests check the library's derivation.
static uint64_t fstat_key(int fd) {
  struct stat st;
  ck_assert_int_eq(fstat(fd, &st), 0);
  return (uint64_t(st.st_dev) << 32) ^ uint64_t(st.st_ino);
}

// The formula is the contract between independent builds: these values must
// never change.
START_TEST(test_golden_ids) {
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::DmaBuf, 0x1234).id, 0x1234ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::Shm, 0x1234).id, 0x0100000000001234ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::IoSurface, 7).id, 0x0200000000000007ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::AHardwareBufferId, 7).id,
                    0x0300000000000007ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::AHardwareBufferPtr, 7).id,
                    0x0400000000000007ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::D3d11Texture, 7).id,
                    0x0500000000000007ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::HostPtr, 0x7f0012345000ull).id,
                    0x06007f0012345000ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::Pbo, 3).id, 0x0700000000000003ull);
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::VkImage, 0xdeadbeefull).id,
                    0x08000000deadbeefull);
  // The kind's bits are XORed, not ORed: a key with high bits set flips them.
  ck_assert_uint_eq(BufferIdentity::derived(IdentityKind::Shm, 0xff00000000000001ull).id,
                    0xfe00000000000001ull);
  // Inode keys: (st_dev << 32) ^ st_ino.
  ck_assert_uint_eq(inode_key(0x16, 0x2a), 0x000000160000002aull);
  // st_ino above 32 bits folds into st_dev's half instead of being cut off.
  ck_assert_uint_eq(inode_key(0x1, 0x100000002ull), 0x2ull);
}
END_TEST

START_TEST(test_pinned_kind_values) {
  ck_assert_int_eq(static_cast<int>(IdentityKind::DmaBuf), 0);
  ck_assert_int_eq(static_cast<int>(IdentityKind::Shm), 1);
  ck_assert_int_eq(static_cast<int>(IdentityKind::IoSurface), 2);
  ck_assert_int_eq(static_cast<int>(IdentityKind::AHardwareBufferId), 3);
  ck_assert_int_eq(static_cast<int>(IdentityKind::AHardwareBufferPtr), 4);
  ck_assert_int_eq(static_cast<int>(IdentityKind::D3d11Texture), 5);
  ck_assert_int_eq(static_cast<int>(IdentityKind::HostPtr), 6);
  ck_assert_int_eq(static_cast<int>(IdentityKind::Pbo), 7);
  ck_assert_int_eq(static_cast<int>(IdentityKind::VkImage), 8);
}
END_TEST

START_TEST(test_memfd_is_dmabuf_kind_with_inode_key) {
  ScopedFd fd = make_memfd("ef-identity", 4096);
  ck_assert_int_ge(fd.get(), 0);
  auto identity = identity_from_fd(fd.get());
  ck_assert_msg(identity.ok(), "%s", identity.ok() ? "" : identity.error().message.c_str());
  ck_assert_int_eq(static_cast<int>(identity->kind), static_cast<int>(IdentityKind::DmaBuf));
  ck_assert_uint_eq(identity->id, fstat_key(fd.get()));
}
END_TEST

START_TEST(test_dup_keeps_identity) {
  ScopedFd fd = make_memfd("ef-dup", 4096);
  ScopedFd copy(dup(fd.get()));
  ScopedFd copy2(fcntl(fd.get(), F_DUPFD_CLOEXEC, 100));
  auto a = identity_from_fd(fd.get());
  auto b = identity_from_fd(copy.get());
  auto c = identity_from_fd(copy2.get());
  ck_assert(a.ok() && b.ok() && c.ok());
  ck_assert(*a == *b);
  ck_assert(*a == *c);
}
END_TEST

START_TEST(test_two_memfds_differ) {
  ScopedFd fd1 = make_memfd("ef-a", 4096);
  ScopedFd fd2 = make_memfd("ef-a", 4096);  // same name, same size: still other bytes
  auto a = identity_from_fd(fd1.get());
  auto b = identity_from_fd(fd2.get());
  ck_assert(a.ok() && b.ok());
  ck_assert(!(*a == *b));
  ck_assert_uint_ne(a->id, b->id);
}
END_TEST

START_TEST(test_one_key_two_kinds_differ) {
  for (uint32_t k1 = 0; k1 < kIdentityKindCount; ++k1)
    for (uint32_t k2 = 0; k2 < kIdentityKindCount; ++k2) {
      if (k1 == k2)
        continue;
      auto a = BufferIdentity::derived(static_cast<IdentityKind>(k1), 7);
      auto b = BufferIdentity::derived(static_cast<IdentityKind>(k2), 7);
      ck_assert_uint_ne(a.id, b.id);
      ck_assert(!(a == b));
    }
}
END_TEST

// The fd crosses a process boundary over SCM_RIGHTS; the child derives the id
// and sends it back. It must be the parent's id, byte for byte.
START_TEST(test_identity_same_across_processes) {
  ScopedFd fd = make_memfd("ef-scm", 8192);
  auto mine = identity_from_fd(fd.get());
  ck_assert(mine.ok());
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(sv[0]);
    char byte;
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(sv[1], &msg, 0) != 1)
      _exit(2);
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
      _exit(3);
    int received;
    std::memcpy(&received, CMSG_DATA(cmsg), sizeof received);
    auto theirs = identity_from_fd(received);
    uint64_t id = theirs.ok() ? theirs->id : 0;
    if (write(sv[1], &id, sizeof id) != sizeof id)
      _exit(4);
    _exit(0);
  }
  close(sv[1]);
  // Close the parent's fd to the socket's peer only after sending: the child
  // holds the buffer through the passed fd alone.
  char byte = 'x';
  char control[CMSG_SPACE(sizeof(int))] = {};
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  int sent = fd.get();
  std::memcpy(CMSG_DATA(cmsg), &sent, sizeof sent);
  ck_assert_int_eq(sendmsg(sv[0], &msg, 0), 1);
  uint64_t theirs = 0;
  ck_assert_int_eq(read(sv[0], &theirs, sizeof theirs), (ssize_t)sizeof theirs);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_uint_eq(theirs, mine->id);
  close(sv[0]);
}
END_TEST

// The id of an fd is derived from its kind and its inode, both: Shm is kind
// 1, so the id is the inode key with bit 56 flipped. A classification that
// dropped the kind (inode 7 then colliding with another kind's key 7), which
// a memfd (kind 0) cannot show, fails here.
START_TEST(test_posix_shm_is_shm_kind_with_inode_key) {
  char name[64];
  snprintf(name, sizeof name, "/ef-test-shm-%d", getpid());
  ScopedFd fd(shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600));
  if (fd.get() < 0) {
    // /dev/shm missing in this sandbox: say so instead of passing silently.
    ck_abort_msg("shm_open failed: %s", strerror(errno));
  }
  shm_unlink(name);
  ck_assert_int_eq(ftruncate(fd.get(), 4096), 0);
  const uint64_t want = (uint64_t(1) << 56) ^ fstat_key(fd.get());
  auto identity = identity_from_fd(fd.get());
  ck_assert_msg(identity.ok(), "%s", identity.ok() ? "" : identity.error().message.c_str());
  ck_assert_int_eq(static_cast<int>(identity->kind), static_cast<int>(IdentityKind::Shm));
  ck_assert_msg(identity->id == want, "shm id %016llx, want (1 << 56) ^ key %016llx",
                (unsigned long long)identity->id, (unsigned long long)want);
  auto again = rederive_fd_identity(fd.get(), IdentityKind::Shm);
  ck_assert(again.ok());
  ck_assert_msg(again->id == want, "re-derived shm id %016llx, want %016llx",
                (unsigned long long)again->id, (unsigned long long)want);
}
END_TEST

// The same inode facts classified as a memfd and as a /dev/shm file: two
// kinds over one key, two ids, each (kind << 56) ^ key.
START_TEST(test_one_inode_two_kinds_differ) {
  FdFacts facts;
  facts.st_dev = 0x16;
  facts.st_ino = 0x7;
  facts.st_mode = S_IFREG | 0600;
  facts.st_size = 4096;
  for (int64_t magic : {int64_t(TMPFS_MAGIC), int64_t(HUGETLBFS_MAGIC)}) {
    facts.fs_magic = magic;
    facts.link = "/memfd:frame (deleted)";
    auto memfd = classify_fd(facts);
    facts.link = "/dev/shm/frame";
    auto shm = classify_fd(facts);
    ck_assert(memfd.ok() && shm.ok());
    ck_assert_uint_eq(memfd->id, 0x0000001600000007ull);
    ck_assert_msg(shm->id == 0x0100001600000007ull, "shm id %016llx, want 0100001600000007",
                  (unsigned long long)shm->id);
    ck_assert_uint_ne(memfd->id, shm->id);
  }
}
END_TEST

// Re-derivation (the per-frame check that an fd still names its buffer)
// keeps the kind in the id too: one memfd re-derived under every kind gives
// (kind << 56) ^ key for each, all different.
START_TEST(test_rederive_carries_kind) {
  ScopedFd fd = make_memfd("ef-rederive-kind", 4096);
  ck_assert_int_ge(fd.get(), 0);
  const uint64_t key = fstat_key(fd.get());
  uint64_t ids[kIdentityKindCount];
  for (uint32_t k = 0; k < kIdentityKindCount; ++k) {
    auto got = rederive_fd_identity(fd.get(), static_cast<IdentityKind>(k));
    ck_assert(got.ok());
    ck_assert_int_eq(static_cast<int>(got->kind), int(k));
    ck_assert_msg(got->id == ((uint64_t(k) << 56) ^ key), "kind %u: id %016llx, key %016llx", k,
                  (unsigned long long)got->id, (unsigned long long)key);
    ids[k] = got->id;
    for (uint32_t j = 0; j < k; ++j)
      ck_assert_msg(ids[j] != ids[k], "kinds %u and %u give one id", j, k);
  }
}
END_TEST

// The process-local producers over one key value, 7: a host pointer, a GL
// buffer name and a VkImage handle of equal value are three buffers, three
// ids.
START_TEST(test_process_local_same_key_differ) {
  const uint64_t key = 7;
  auto host = identity_from_host_ptr(reinterpret_cast<const void *>(uintptr_t(key)));
  auto pbo = identity_from_gl_buffer(uint32_t(key));
  auto vk = identity_from_vk_image(key);
  ck_assert(host.ok() && pbo.ok() && vk.ok());
  ck_assert_uint_eq(host->id, (6ull << 56) ^ key);
  ck_assert_uint_eq(pbo->id, (7ull << 56) ^ key);
  ck_assert_uint_eq(vk->id, (8ull << 56) ^ key);
  ck_assert_uint_ne(host->id, pbo->id);
  ck_assert_uint_ne(host->id, vk->id);
  ck_assert_uint_ne(pbo->id, vk->id);
}
END_TEST

START_TEST(test_other_fds_refused) {
  // A regular disk file.
  char path[] = "/tmp/ef-identity-XXXXXX";
  ScopedFd file(mkstemp(path));
  ck_assert_int_ge(file.get(), 0);
  unlink(path);
  auto r = identity_from_fd(file.get());
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EINVAL);
  ck_assert_ptr_nonnull(strstr(r.error().message.c_str(), "no buffer identity"));

  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  ScopedFd rd(p[0]), wr(p[1]);
  ck_assert_int_eq(identity_from_fd(rd.get()).error().code, EINVAL);

  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  ScopedFd s0(sv[0]), s1(sv[1]);
  ck_assert_int_eq(identity_from_fd(s0.get()).error().code, EINVAL);

  ScopedFd dev(open("/dev/null", O_RDONLY));
  ck_assert_int_eq(identity_from_fd(dev.get()).error().code, EINVAL);
}
END_TEST

START_TEST(test_closed_fd_is_ebadf) {
  int fd;
  {
    ScopedFd m = make_memfd("ef-closed", 4096);
    fd = m.get();
  }
  auto r = identity_from_fd(fd);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EBADF);
  ck_assert_int_eq(identity_from_fd(-1).error().code, EBADF);
}
END_TEST

// No machine here runs a pre-5.3 kernel, so the rule is checked on the facts
// such a kernel reports.
START_TEST(test_pre_5_3_dmabuf_refused) {
  FdFacts facts;
  facts.st_dev = 0xd;
  facts.st_ino = 0x1234;
  facts.st_mode = S_IFREG | 0600;
  facts.fs_magic = 0x444d4142;  // DMA_BUF_MAGIC
  facts.link = "/dmabuf:";
  facts.st_size = 0;
  auto r = classify_fd(facts);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EINVAL);
  ck_assert_ptr_nonnull(strstr(r.error().message.c_str(), "pre-5.3"));

  facts.st_size = 1 << 20;  // a modern dma-buf: accepted as DmaBuf
  auto ok = classify_fd(facts);
  ck_assert(ok.ok());
  ck_assert_int_eq(static_cast<int>(ok->kind), static_cast<int>(IdentityKind::DmaBuf));
  ck_assert_uint_eq(ok->id, inode_key(0xd, 0x1234));

  facts.fs_magic = 0x09041934;  // ANON_INODE_FS_MAGIC: one inode for all
  facts.st_mode = 0600;
  facts.link = "anon_inode:dmabuf";
  auto anon = classify_fd(facts);
  ck_assert(!anon.ok());
  ck_assert_int_eq(anon.error().code, EINVAL);
}
END_TEST

START_TEST(test_tmpfs_file_not_shm_refused) {
  FdFacts facts;
  facts.st_mode = S_IFREG | 0600;
  facts.st_size = 4096;
  facts.fs_magic = TMPFS_MAGIC;
  facts.link = "/tmp/frame.raw";
  ck_assert_int_eq(classify_fd(facts).error().code, EINVAL);
  facts.link = "/dev/shm/frame";
  ck_assert_int_eq(static_cast<int>(classify_fd(facts)->kind), static_cast<int>(IdentityKind::Shm));
  facts.link = "/memfd:frame (deleted)";
  ck_assert_int_eq(static_cast<int>(classify_fd(facts)->kind),
                   static_cast<int>(IdentityKind::DmaBuf));
}
END_TEST

// An empty memfd or shm file holds no pages: no importer accepts size 0, so
// it gets no identity (memfd, shm, and memfd on hugetlbfs alike).
START_TEST(test_empty_memfd_and_shm_refused) {
  FdFacts facts;
  facts.st_mode = S_IFREG | 0600;
  facts.st_size = 0;
  for (int64_t magic : {int64_t(TMPFS_MAGIC), int64_t(HUGETLBFS_MAGIC)})
    for (const char *link : {"/memfd:frame (deleted)", "/dev/shm/frame"}) {
      facts.fs_magic = magic;
      facts.link = link;
      auto r = classify_fd(facts);
      ck_assert_msg(!r.ok(), "%s of size 0 was given an identity", link);
      ck_assert_int_eq(r.error().code, EINVAL);
      ck_assert_ptr_nonnull(strstr(r.error().message.c_str(), "size 0"));
    }
  ScopedFd empty(memfd_create("ef-empty", MFD_CLOEXEC));
  ck_assert_int_ge(empty.get(), 0);
  ck_assert_int_eq(identity_from_fd(empty.get()).error().code, EINVAL);
}
END_TEST

START_TEST(test_process_local_kinds) {
  int x = 0;
  auto host = identity_from_host_ptr(&x);
  ck_assert(host.ok());
  ck_assert_uint_eq(host->id, (6ull << 56) ^ reinterpret_cast<uintptr_t>(&x));
  ck_assert_int_eq(identity_from_host_ptr(nullptr).error().code, EINVAL);

  ck_assert_uint_eq(identity_from_gl_buffer(5)->id, 0x0700000000000005ull);
  ck_assert_int_eq(identity_from_gl_buffer(0).error().code, EINVAL);

  ck_assert_uint_eq(identity_from_vk_image(0xabcdef)->id, 0x0800000000abcdefull);
  ck_assert_int_eq(identity_from_vk_image(0).error().code, EINVAL);
}
END_TEST

START_TEST(test_rederive_matches_and_detects_reuse) {
  ScopedFd fd = make_memfd("ef-rederive", 4096);
  auto full = identity_from_fd(fd.get());
  ck_assert(full.ok());
  auto again = rederive_fd_identity(fd.get(), full->kind);
  ck_assert(again.ok());
  ck_assert(*again == *full);
  // The number closed and taken by other bytes: the re-derived id differs.
  int number = fd.get();
  fd.reset();
  ck_assert_int_eq(rederive_fd_identity(number, full->kind).error().code, EBADF);
  ScopedFd other = make_memfd("ef-rederive", 4096);
  ck_assert_int_eq(other.get(), number);
  ck_assert(!(*rederive_fd_identity(number, full->kind) == *full));
}
END_TEST

static Suite *identity_suite() {
  Suite *s = suite_create("identity");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_golden_ids);
  tcase_add_test(tc, test_pinned_kind_values);
  tcase_add_test(tc, test_memfd_is_dmabuf_kind_with_inode_key);
  tcase_add_test(tc, test_dup_keeps_identity);
  tcase_add_test(tc, test_two_memfds_differ);
  tcase_add_test(tc, test_one_key_two_kinds_differ);
  tcase_add_test(tc, test_identity_same_across_processes);
  tcase_add_test(tc, test_posix_shm_is_shm_kind_with_inode_key);
  tcase_add_test(tc, test_one_inode_two_kinds_differ);
  tcase_add_test(tc, test_rederive_carries_kind);
  tcase_add_test(tc, test_process_local_same_key_differ);
  tcase_add_test(tc, test_other_fds_refused);
  tcase_add_test(tc, test_closed_fd_is_ebadf);
  tcase_add_test(tc, test_pre_5_3_dmabuf_refused);
  tcase_add_test(tc, test_tmpfs_file_not_shm_refused);
  tcase_add_test(tc, test_empty_memfd_and_shm_refused);
  tcase_add_test(tc, test_process_local_kinds);
  tcase_add_test(tc, test_rederive_matches_and_detects_reuse);
  suite_add_tcase(s, tc);
  return s;
}

int main() {
  return ef::test::run_suite(identity_suite());
}
