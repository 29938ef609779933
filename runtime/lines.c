/*
 * lines.c - addresses to source file and line (symfile, symline,
 * symfileline, usymfile, usymline, usymfileline) through the line tables
 * of lines.h.  Included by tapset_support.c after usyms.c.
 *
 * A kernel address is taken to symbol+offset [module] by kallsyms, then
 * to the rows of that function; a user address to its object and file
 * address as usyms.c finds it, then to that object's rows.  What no
 * table covers is written as the address, "0x%016lx".
 */
#include "lines.h"

/* The row holding addr in rows[0..n): its line, 0 when none. */
static const struct tap_line *_tap_line_find(const struct tap_line *rows,
					     unsigned int n, unsigned long addr)
{
	int lo = 0, hi = (int)n - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (rows[mid].addr <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (found < 0 || !rows[found].line)
		return NULL;
	return &rows[found];
}

static int _tap_line_write(char *buf, size_t len, unsigned long addr,
			   const struct tap_line *row, const char *const *files,
			   int what)
{
	if (!row) {
		snprintf(buf, len, "0x%016lx", addr);
		return -ENOENT;
	}
	if ((what & TAP_LINE_FILE) && (what & TAP_LINE_LINE))
		snprintf(buf, len, "%s:%u", files[row->file], row->line);
	else if (what & TAP_LINE_FILE)
		strscpy(buf, files[row->file], len);
	else
		snprintf(buf, len, "%u", row->line);
	return 0;
}

#ifdef TAP_KLINES
/* "name+0xoff/0xsize [module]" (sprint_symbol) taken apart: name and
 * module cut in place, offset and size parsed; false when it is not
 * that. */
static bool _tap_ksym_split(char *sym, const char **name, unsigned long *off,
			    unsigned long *size, const char **mod)
{
	char *plus = strrchr(sym, '+');
	char *slash, *br, *end;

	if (!plus || plus == sym)
		return false;
	slash = strchr(plus, '/');
	if (!slash)
		return false;
	*slash = '\0';
	br = strstr(slash + 1, " [");
	*mod = NULL;
	if (br) {
		*br = '\0';
		end = strchr(br + 2, ']');
		if (end)
			*end = '\0';
		*mod = br + 2;
	}
	if (kstrtoul(plus + 1, 16, off) || kstrtoul(slash + 1, 16, size))
		return false;
	*plus = '\0';
	*name = sym;
	return true;
}

/* Module names as kallsyms has them: '-' written as '_'. */
static bool _tap_kmod_same(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}
#endif

int tap_symfileline(unsigned long addr, char *buf, size_t len, int what)
{
#ifdef TAP_KLINES
	char sym[KSYM_SYMBOL_LEN];
	const struct tap_kfunc_lines *best = NULL;
	const char *name, *mod;
	unsigned long off, size, gap = ~0UL;
	bool tie = false;
	unsigned int i;

	sprint_symbol(sym, addr);
	if (_tap_ksym_split(sym, &name, &off, &size, &mod)) {
		for (i = 0; i < TAP_NKLINES; i++) {
			const struct tap_kfunc_lines *f = &tap_kfuncs[i];

			if (strcmp(f->name, name) || !_tap_kmod_same(f->module, mod) ||
			    f->size > size)
				continue;
			if (size - f->size == gap)
				tie = true;
			if (size - f->size < gap) {
				best = f;
				gap = size - f->size;
				tie = false;
			}
		}
	}
	if (best && !tie)
		return _tap_line_write(buf, len, addr,
				       _tap_line_find(best->rows, best->nrows, off),
				       best->files, what);
#endif
	return _tap_line_write(buf, len, addr, NULL, NULL, what);
}

int tap_usymfileline(unsigned long addr, char *buf, size_t len, int what)
{
	const struct tap_line *row = NULL;
	const char *const *files = NULL;
	struct _tap_uloc loc;

	if (addr && _tap_ulocate(addr, &loc) && loc.obj->nlines) {
		row = _tap_line_find(loc.obj->lines, loc.obj->nlines, loc.faddr);
		files = loc.obj->files;
	}
	return _tap_line_write(buf, len, addr, row, files, what);
}
