/*
 * tapset_support.h - the helpers runtime/TAPSET-API.md promises to embedded
 * C that are about memory, symbols, stacks and tasks (the context
 * tapsets: kernel_string(), symname(), backtrace(), pid2task() ...).
 * Output and control helpers (tap_print, tap_warn, tap_exit ...) come from
 * the transport and printf.
 *
 * Every function here may be called in any probe context: nothing sleeps,
 * allocates or faults.  The kernel side is tapset_support.c.
 */
#ifndef TAP_TAPSET_SUPPORT_H
#define TAP_TAPSET_SUPPORT_H

#ifndef TAP_USER_TEST
#include <linux/sched.h>
#endif

/* Memory: 0, or -EFAULT when any byte cannot be read (written). */
int tap_read_kernel(void *dst, const void *src, size_t n);
int tap_write_kernel(void *dst, const void *src, size_t n);
int tap_read_user(void *dst, const void __user *src, size_t n);
int tap_write_user(void __user *dst, const void *src, size_t n);

/* A NUL-terminated string of at most n - 1 bytes: its length, or
 * -EFAULT (dst is then ""). */
long tap_strncpy_kernel(char *dst, const char *src, size_t n);
long tap_strncpy_user(char *dst, const char __user *src, size_t n);

/* Kernel symbols: 0, or -ENOENT (then "0x..." / "<unknown>"). */
int tap_symname(unsigned long addr, char *buf, size_t len);
int tap_symdata(unsigned long addr, char *buf, size_t len);
int tap_modname(unsigned long addr, char *buf, size_t len);

/* User symbols: the uprobes runtime provides these when it embeds symbol
 * tables (it defines TAP_USER_SYMTAB first); without, every address
 * is unknown. */
int tap_usymname(unsigned long addr, char *buf, size_t len);
int tap_usymdata(unsigned long addr, char *buf, size_t len);
int tap_umodname(unsigned long addr, char *buf, size_t len);

/* Stacks: the number of return addresses written to pcs. */
int tap_backtrace(bool user, unsigned long *pcs, int max);
int tap_task_backtrace(struct task_struct *t, unsigned long *pcs, int max);

struct task_struct *tap_pid2task(pid_t pid);
/* t is the target (target(): -x PID, -c CMD) or a descendant of it;
 * false without a target. */
bool tap_in_target_tree(struct task_struct *t);
void tap_module_size(char *buf, size_t len);
void tap_printk(int level, const char *msg);

#endif /* TAP_TAPSET_SUPPORT_H */
