/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: the kernel's <linux/string.h> is libc's here. */
#include <string.h>
