// `sandbox: strict`: a Landlock ruleset made in runner, which a task's child process puts on
// itself just before exec (runner_shim.c). Landlock allows only what a rule grants beneath a
// path; every file-system right this kernel's Landlock knows is handled.
#define _GNU_SOURCE
#include "runner_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ACCESS(bit) ((uint64_t)1 << (bit))
enum {
  EXECUTE = 0, WRITE_FILE, READ_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG,
  MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV
};

int runner_sandbox_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : (int)abi;
}

// The rights Landlock of version `abi` knows.
static uint64_t handled(int abi) {
  uint64_t rights = ACCESS(MAKE_SYM + 1) - 1;  // version 1: EXECUTE ... MAKE_SYM
  if (abi >= 2) rights |= ACCESS(REFER);
  if (abi >= 3) rights |= ACCESS(TRUNCATE);
  if (abi >= 5) rights |= ACCESS(IOCTL_DEV);
  return rights;
}

static uint64_t granted(int kind) {
  const uint64_t read = ACCESS(READ_FILE) | ACCESS(READ_DIR) | ACCESS(EXECUTE);
  switch (kind) {
  case RUNNER_SANDBOX_READ: return read;
  case RUNNER_SANDBOX_LIST: return ACCESS(READ_DIR);
  case RUNNER_SANDBOX_DEVICE:
    return ACCESS(READ_FILE) | ACCESS(WRITE_FILE) | ACCESS(READ_DIR) | ACCESS(TRUNCATE) | ACCESS(IOCTL_DEV);
  default: return ~(uint64_t)0;  // RUNNER_SANDBOX_WRITE: everything
  }
}

int runner_sandbox_ruleset(const char *const paths[], const int kinds[], int count) {
  int abi = runner_sandbox_abi();
  if (abi < 0) return abi;
  struct landlock_ruleset_attr attributes = {.handled_access_fs = handled(abi)};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
  if (ruleset < 0) return -errno;
  const uint64_t file_rights =
      ACCESS(EXECUTE) | ACCESS(WRITE_FILE) | ACCESS(READ_FILE) | ACCESS(TRUNCATE) | ACCESS(IOCTL_DEV);
  for (int i = 0; i < count; i++) {
    // A path that is not there is granted nothing: it can only be less access.
    int fd = open(paths[i], O_PATH | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat status;
    uint64_t access = granted(kinds[i]) & attributes.handled_access_fs;
    if (fstat(fd, &status) == 0 && !S_ISDIR(status.st_mode)) access &= file_rights;
    struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = fd};
    int rc = access ? (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) : 0;
    int error = errno;
    close(fd);
    if (rc != 0) {
      close(ruleset);
      return -error;
    }
  }
  return ruleset;
}
