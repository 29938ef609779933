/*
 * tapset_support.h - the helpers runtime/TAPSET-API.md promises to embedded
 * C that are about memory, symbols, stacks and tasks (the context
 * tapsets: kernel_string(), symname(), backtrace(), pid2task() ...).
 * Output and control helpers (tap_print, tap_warn, tap_exit ...) come from
 * the transport and printf.
 *
 * Every function here may be called in any probe context: nothing sleeps,
 * allocates or faults.  The kernel side is tapset_support.c, with memory.c
 * (memory) and task.c (tasks).
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

/* User symbols of the current task, from the tables of the objects the
 * module carries (usyms.c): 0, or -ENOENT for an address in no carried
 * object (then "0x%016lx" / "<unknown>"). */
int tap_usymname(unsigned long addr, char *buf, size_t len);
int tap_usymdata(unsigned long addr, char *buf, size_t len);
int tap_umodname(unsigned long addr, char *buf, size_t len);
int tap_umodaddr(unsigned long addr, unsigned long *off);
int tap_umodbuildid(unsigned long addr, char *buf, size_t len);
/* One user address in one of stap's symbol formats (flags below): the
 * length written. */
#define TAP_USYM_SYMBOL		0x001	/* the name */
#define TAP_USYM_MODULE		0x002	/* [the object's path] */
#define TAP_USYM_OFFSET		0x004	/* +0xOFF */
#define TAP_USYM_SIZE		0x008	/* /0xSIZE (with OFFSET) */
#define TAP_USYM_HEX		0x010	/* "0x%016lx : " before the name */
#define TAP_USYM_PRE_SPACE	0x020
#define TAP_USYM_NEWLINE	0x040
#define TAP_USYM_POST_SPACE	0x080	/* instead of the newline */
#define TAP_USYM_BASENAME	0x100	/* the object's file name only */
#define TAP_USYM_DATA	(TAP_USYM_SYMBOL | TAP_USYM_MODULE | TAP_USYM_OFFSET | TAP_USYM_SIZE)
#define TAP_USYM_FULL	(TAP_USYM_DATA | TAP_USYM_HEX | TAP_USYM_PRE_SPACE | TAP_USYM_NEWLINE)
#define TAP_USYM_SIMPLE	(TAP_USYM_SYMBOL | TAP_USYM_MODULE | TAP_USYM_BASENAME | \
			 TAP_USYM_OFFSET | TAP_USYM_NEWLINE)
#define TAP_USYM_BRIEF	(TAP_USYM_SYMBOL | TAP_USYM_OFFSET | TAP_USYM_NEWLINE)
#define TAP_USYM_NONE	TAP_USYM_POST_SPACE	/* "0x%016lx " */
int tap_usym_format(char *buf, size_t len, unsigned long addr, int flags);
/* Source file and line of a kernel (user) address, from the line
 * tables the module carries (lines.c): what is TAP_LINE_FILE and/or
 * TAP_LINE_LINE, written as "FILE", "LINE" or "FILE:LINE"; 0, or -ENOENT
 * when not known (then "0x%016lx"). */
#define TAP_LINE_FILE	1
#define TAP_LINE_LINE	2
int tap_symfileline(unsigned long addr, char *buf, size_t len, int what);
int tap_usymfileline(unsigned long addr, char *buf, size_t len, int what);
/* Hold (release) the carried objects' inodes: the session's start (stop). */
int tap_usyms_start(void);
void tap_usyms_stop(void);
/* The user stack of regs, the pc first: how many return addresses. */
int tap_uunwind(struct pt_regs *regs, unsigned long *pcs, int max);

/* Stacks: the number of return addresses written to pcs. */
int tap_backtrace(bool user, unsigned long *pcs, int max);
int tap_task_backtrace(struct task_struct *t, unsigned long *pcs, int max);

struct task_struct *tap_pid2task(pid_t pid);
/* t is the target (target(): -x PID, -c CMD) or a descendant of it;
 * false without a target. */
bool tap_in_target_tree(struct task_struct *t);
/* The root taprun (the loader) sees: paths a script names are looked up
 * there, as taprun may run in a chroot or a container; our own when the
 * loader is gone.  Held: path_put() it. */
struct path;
void tap_loader_root(struct path *root);
void tap_module_size(char *buf, size_t len);
void tap_printk(int level, const char *msg);

#endif /* TAP_TAPSET_SUPPORT_H */
