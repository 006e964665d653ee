package noatime

import "syscall"

// flag is Linux's O_NOATIME.
const flag = syscall.O_NOATIME
