/*
 * usyms.c - user-space addresses of the current task to names, and its
 * user stack: the tap_usym* / tap_umodname helpers (TAPSET-API.md) and
 * the unwinder behind ubacktrace().  Included by tapset_support.c.
 *
 * The module carries the tables of the objects it knows (usyms.h; pass 3
 * defines TAP_USYMS and tap_uobjs[] when there are any).  At start each
 * object's path is looked up in the loader's root (taprun may run in a
 * chroot) and its inode held; the real inode under overlayfs, which is
 * what a process maps.  An address is then found through the task's
 * mapping: its vma (mmap lock taken with trylock only, so a probe never
 * waits), the vma's file inode to the object, the file offset to a file
 * address through the PT_LOAD segment that holds it.
 *
 * The stack is walked with the objects' CFI rows: CFA from the stack or
 * frame pointer, the return address and the caller's frame pointer read
 * from the stack with
 * fault-safe reads.  Where a pc has no row (an object not carried, code
 * without CFI) the frame-pointer chain is followed while it goes up the
 * stack.  Depth is bounded by the caller's array.
 */
#include "usyms.h"

#include <linux/uprobes.h>

/* The return address stored at slot: a uretprobe replaced the one a
 * function's caller pushed with its trampoline and keeps the original in
 * the task's return instances, by the stack slot it replaced.  Read
 * fault-safely: the list is the task's own, but an interrupt may see it
 * while the trampoline frees instances. */
static unsigned long _tap_uret_orig(unsigned long slot, unsigned long ra)
{
#ifdef CONFIG_UPROBES
	struct uprobe_task *ut = current->utask;
	struct return_instance *ri = NULL, cur;
	int guard = 0;

	if (!ut || in_interrupt() ||
	    tap_read_kernel(&ri, &ut->return_instances, sizeof(ri)))
		return ra;
	while (ri && guard++ < 64) {
		if (tap_read_kernel(&cur, ri, sizeof(cur)))
			break;
		if (cur.stack == slot)
			return cur.orig_ret_vaddr;
		ri = cur.next;
	}
#endif
	return ra;
}

#ifdef TAP_USYMS

#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/file.h>
#include <linux/path.h>
#include <linux/mm.h>

static struct inode *tap_uobj_inodes[TAP_NUOBJS];


/* An object that cannot be found stays unknown: its addresses print as
 * numbers, as for an object the module does not carry. */
int tap_usyms_start(void)
{
	struct path root;
	int i;

	tap_loader_root(&root);
	for (i = 0; i < TAP_NUOBJS; i++) {
		struct inode *inode;
		/* O_PATH: found, not read (vfs_path_lookup is not declared
		 * for modules on 6.1) */
		struct file *f = file_open_root(&root, tap_uobjs[i].path, O_PATH, 0);

		if (IS_ERR(f))
			continue;
		inode = d_real_inode(f->f_path.dentry);
		tap_uobj_inodes[i] = inode ? igrab(inode) : NULL;
		fput(f);
	}
	path_put(&root);
	return 0;
}

void tap_usyms_stop(void)
{
	int i;

	for (i = 0; i < TAP_NUOBJS; i++) {
		if (tap_uobj_inodes[i])
			iput(tap_uobj_inodes[i]);
		tap_uobj_inodes[i] = NULL;
	}
}

/*
 * The object's file, by its filesystem and inode number rather than the
 * inode we hold: a network filesystem (9p in the test VM, 6.12) may give
 * a later lookup of the same file, the exec's, an inode of its own.
 */
static bool _tap_same_file(const struct inode *held, const struct inode *inode)
{
	return held == inode ||
	       (held && held->i_sb == inode->i_sb && held->i_ino == inode->i_ino);
}

/* Where one user address is: the object and its file address. */
struct _tap_uloc {
	const struct tap_uobj *obj;
	unsigned long faddr;
	unsigned long vm_start, vm_end;
};

/* Under the mmap lock: the carried object addr is in, or false. */
static bool _tap_ulocate_locked(struct mm_struct *mm, unsigned long addr,
				struct _tap_uloc *loc)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	struct inode *inode;
	unsigned long off;
	unsigned int i, s;

	if (!vma || addr < vma->vm_start || !vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	off = addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
	for (i = 0; i < TAP_NUOBJS; i++) {
		const struct tap_uobj *o = &tap_uobjs[i];

		if (!_tap_same_file(tap_uobj_inodes[i], inode))
			continue;
		for (s = 0; s < o->nsegs; s++) {
			const struct tap_useg *g = &o->segs[s];

			if (off >= g->offset && off - g->offset < g->filesz) {
				loc->obj = o;
				loc->faddr = g->vaddr + (off - g->offset);
				loc->vm_start = vma->vm_start;
				loc->vm_end = vma->vm_end;
				return true;
			}
		}
	}
	return false;
}

static bool _tap_ulocate(unsigned long addr, struct _tap_uloc *loc)
{
	struct mm_struct *mm = current->mm;
	bool found;

	if (!mm || in_nmi() || (current->flags & PF_KTHREAD))
		return false;
	if (!mmap_read_trylock(mm))
		return false;
	found = _tap_ulocate_locked(mm, addr, loc);
	mmap_read_unlock(mm);
	return found;
}

/* The symbol holding faddr: its index, or -1 before the first. */
static int _tap_usym_index(const struct tap_uobj *o, unsigned long faddr)
{
	int lo = 0, hi = (int)o->nsyms - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= faddr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* name, offset and size (to the next symbol; 0 for the last) */
static const char *_tap_usym_lookup(const struct tap_uobj *o, unsigned long faddr,
				    unsigned long *off, unsigned long *size)
{
	int i = _tap_usym_index(o, faddr);

	if (i < 0)
		return NULL;
	*off = faddr - o->syms[i].addr;
	*size = (unsigned int)i + 1 < o->nsyms ? o->syms[i + 1].addr - o->syms[i].addr : 0;
	return o->strs + o->syms[i].name;
}

static const struct tap_urow *_tap_urow(const struct tap_uobj *o, unsigned long faddr)
{
	int lo = 0, hi = (int)o->nrows - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (o->rows[mid].pc <= faddr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found < 0 ? NULL : &o->rows[found];
}

static bool _tap_uread(unsigned long addr, unsigned long *val)
{
	return !(addr & (sizeof(long) - 1)) &&
	       !tap_read_user(val, (const void __user *)addr, sizeof(*val));
}

/* A return address read from the stack at slot, through a uretprobe's
 * trampoline to the real one. */
/* The return address saved at slot of the frame whose CFA is cfa. */
static bool _tap_uread_ra(unsigned long cfa, unsigned long slot, unsigned long *ra)
{
	if (!_tap_uread(slot, ra))
		return false;
	*ra = _tap_uret_orig(tap_arch_uret_stack(cfa, slot), *ra);
	return true;
}

/*
 * The return addresses of the user stack whose registers are regs, the
 * probed pc first.  Each step finds the caller's pc, sp and frame pointer
 * from the row of the current pc (for a return address, of pc - 1: the
 * call may be the function's last instruction); every caller's sp is
 * above the callee's, so the walk ends.
 */
int tap_uunwind(struct pt_regs *regs, unsigned long *pcs, int max)
{
	struct mm_struct *mm = current->mm;
	unsigned long pc, sp, bp;
	bool locked;
	int n = 0;

	if (!regs || max <= 0)
		return 0;
	tap_arch_user_frame(regs, &pc, &sp, &bp);
	pcs[n++] = pc;
	if (!tap_arch_user_native(regs))
		return n;	/* the rows and the frame layout are not its */
	locked = mm && !in_nmi() && !(current->flags & PF_KTHREAD) &&
		 mmap_read_trylock(mm);
	while (n < max) {
		const struct tap_urow *row = NULL;
		struct _tap_uloc loc;
		unsigned long cfa, ra, nbp = bp;
		bool in_link = false;

		if (locked && _tap_ulocate_locked(mm, n == 1 ? pc : pc - 1, &loc))
			row = _tap_urow(loc.obj, loc.faddr);
		if (row && row->kind == TAP_UNW_OUTERMOST)
			break;
		if (row && row->kind != TAP_UNW_NONE) {
			if (row->kind == TAP_UNW_SP)
				cfa = sp + row->cfa_off;
			else if (row->kind == TAP_UNW_BP)
				cfa = bp + row->cfa_off;
			else
				cfa = tap_arch_plt_cfa(sp, pc);
			if (row->ra_off) {
				if (!_tap_uread_ra(cfa, cfa + row->ra_off, &ra))
					break;
			} else {
				/* in the link register: only the probed
				 * frame's is known */
				if (n != 1 || !tap_arch_user_link(regs, &ra))
					break;
				ra = _tap_uret_orig(tap_arch_uret_stack(cfa, 0), ra);
				in_link = true;
			}
			if (row->fp_off && !_tap_uread(cfa + row->fp_off, &nbp))
				break;
		} else {
			/* the frame pointer chain: [fp] the caller's fp,
			 * [fp + 8] the return address */
			if (bp < sp || !_tap_uread(bp, &nbp) || !_tap_uread_ra(bp + 16, bp + 8, &ra))
				break;
			cfa = bp + 16;
		}
		/* callers' frames are higher; at a function's entry the
		 * CFA is sp itself where the call pushes nothing (arm64),
		 * once only */
		if (!ra || cfa < sp || (cfa == sp && !in_link))
			break;
		pc = ra;
		sp = cfa;
		bp = nbp;
		pcs[n++] = pc;
	}
	if (locked)
		mmap_read_unlock(mm);
	return n;
}

#else /* no user objects: every address is unknown */

int tap_usyms_start(void)
{
	return 0;
}

void tap_usyms_stop(void)
{
}

struct _tap_uloc {
	const struct tap_uobj *obj;
	unsigned long faddr;
	unsigned long vm_start, vm_end;
};

static bool _tap_ulocate(unsigned long addr, struct _tap_uloc *loc)
{
	return false;
}

static const char *_tap_usym_lookup(const struct tap_uobj *o, unsigned long faddr,
				    unsigned long *off, unsigned long *size)
{
	return NULL;
}

/* Without tables: the frame-pointer chain only. */
int tap_uunwind(struct pt_regs *regs, unsigned long *pcs, int max)
{
	unsigned long pc, sp, bp, frame[2];
	int n = 0;

	if (!regs || max <= 0)
		return 0;
	tap_arch_user_frame(regs, &pc, &sp, &bp);
	pcs[n++] = pc;
	if (!tap_arch_user_native(regs))
		return n;
	while (n < max && bp >= sp && !(bp & (sizeof(long) - 1))) {
		if (tap_read_user(frame, (const void __user *)bp, sizeof(frame)))
			break;
		if (!frame[1])
			break;
		pcs[n++] = _tap_uret_orig(bp + 8, frame[1]);
		if (frame[0] <= bp)	/* stacks grow down: callers are higher */
			break;
		sp = bp + 16;
		bp = frame[0];
	}
	return n;
}

#endif /* TAP_USYMS */

/*
 * One address as stap's symbol formats print it (TAP_USYM_* flags):
 * "[0x%016lx : ]NAME[+0xOFF[/0xSIZE]][ [MODULE]]" when the symbol is
 * known, "0x%016lx [MODULE[+0xOFF[/0xSIZE]]]" (the offset in the
 * mapping) when only the object is, else "0x%016lx".  The length
 * written.
 */
int tap_usym_format(char *buf, size_t len, unsigned long addr, int flags)
{
	const char *pre = flags & TAP_USYM_PRE_SPACE ? " " : "";
	const char *post = flags & TAP_USYM_POST_SPACE ? " " :
			   flags & TAP_USYM_NEWLINE ? "\n" : "";
	const char *name = NULL, *mod = NULL;
	unsigned long off = 0, size = 0;
	struct _tap_uloc loc;
	int n;

	if ((flags & (TAP_USYM_SYMBOL | TAP_USYM_MODULE)) && addr &&
	    _tap_ulocate(addr, &loc)) {
		mod = loc.obj->path;
		if (flags & TAP_USYM_BASENAME) {
			const char *slash = strrchr(mod, '/');

			if (slash)
				mod = slash + 1;
		}
		name = _tap_usym_lookup(loc.obj, loc.faddr, &off, &size);
		if (!name) {
			off = addr - loc.vm_start;
			size = loc.vm_end - loc.vm_start;
		}
	}
	if (!(flags & TAP_USYM_MODULE))
		mod = NULL;
	if (name && (flags & TAP_USYM_SYMBOL)) {
		n = snprintf(buf, len, "%s", pre);
		if (flags & TAP_USYM_HEX)
			n += snprintf(buf + n, len > n ? len - n : 0, "0x%016lx : ", addr);
		n += snprintf(buf + n, len > n ? len - n : 0, "%s", name);
		if (flags & TAP_USYM_OFFSET)
			n += snprintf(buf + n, len > n ? len - n : 0, "+0x%lx", off);
		if ((flags & TAP_USYM_OFFSET) && (flags & TAP_USYM_SIZE))
			n += snprintf(buf + n, len > n ? len - n : 0, "/0x%lx", size);
		if (mod)
			n += snprintf(buf + n, len > n ? len - n : 0, " [%s]", mod);
		n += snprintf(buf + n, len > n ? len - n : 0, "%s", post);
	} else if (mod) {
		n = snprintf(buf, len, "%s0x%016lx [%s", pre, addr, mod);
		if (flags & TAP_USYM_OFFSET)
			n += snprintf(buf + n, len > n ? len - n : 0, "+0x%lx", off);
		if ((flags & TAP_USYM_OFFSET) && (flags & TAP_USYM_SIZE))
			n += snprintf(buf + n, len > n ? len - n : 0, "/0x%lx", size);
		n += snprintf(buf + n, len > n ? len - n : 0, "]%s", post);
	} else {
		n = snprintf(buf, len, "%s0x%016lx%s", pre, addr, post);
	}
	return len && n >= (int)len ? (int)len - 1 : n;
}

int tap_usymname(unsigned long addr, char *buf, size_t len)
{
	tap_usym_format(buf, len, addr, TAP_USYM_SYMBOL);
	return strncmp(buf, "0x", 2) ? 0 : -ENOENT;
}

int tap_usymdata(unsigned long addr, char *buf, size_t len)
{
	struct _tap_uloc loc;

	tap_usym_format(buf, len, addr, TAP_USYM_DATA);
	return addr && _tap_ulocate(addr, &loc) ? 0 : -ENOENT;
}

int tap_umodname(unsigned long addr, char *buf, size_t len)
{
	struct _tap_uloc loc;

	if (!addr || !_tap_ulocate(addr, &loc)) {
		strscpy(buf, "<unknown>", len);
		return -ENOENT;
	}
	strscpy(buf, loc.obj->path, len);
	return 0;
}

/* addr's offset from the start of the mapping of a carried object that
 * holds it (stap's umodaddr), or -ENOENT. */
int tap_umodaddr(unsigned long addr, unsigned long *off)
{
	struct _tap_uloc loc;

	if (!addr || !_tap_ulocate(addr, &loc))
		return -ENOENT;
	*off = addr - loc.vm_start;
	return 0;
}

/* The build-id (hex) of the carried object holding addr, or -ENOENT
 * (then "" in buf); -ENODATA when that object has none. */
int tap_umodbuildid(unsigned long addr, char *buf, size_t len)
{
	struct _tap_uloc loc;

	buf[0] = '\0';
	if (!addr || !_tap_ulocate(addr, &loc))
		return -ENOENT;
	if (!loc.obj->build_id)
		return -ENODATA;
	strscpy(buf, loc.obj->build_id, len);
	return 0;
}
