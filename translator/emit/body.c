/* body.c - pass 3: what the code of one C function being written (a
 * Body: a probe body, a script function, an @entry saver) keeps track of
 * while expr.c, stmt.c and target_expr.c write it: the locals and
 * globals it touches, its labels and error exits, its temporaries in the
 * frame.  module.c reads all of it to lay out the frame and the locks.
 */
#include "emit_priv.h"

static void use_global(Body *b, Var *v, bool write, bool locked)
{
	for (int i = 0; i < b->uses.len; i++) {
		GlobalUse *u = vec_get(&b->uses, i);
		if (u->var == v) {
			u->write |= write;
			u->locked |= locked;
			return;
		}
	}
	GlobalUse *u = NEW(GlobalUse);
	u->var = v;
	u->write = write;
	u->locked = locked;
	vec_push(&b->uses, u);
}

void body_use_global(Body *b, Var *v, bool write)
{
	use_global(b, v, write, true);
}

/* `x <<< v` or `a[k] <<< v`: this CPU's part only, under its own lock. */
void body_use_stat_add(Body *b, Var *v)
{
	use_global(b, v, false, false);
}

void body_add_local(Body *b, Var *v)
{
	for (int i = 0; i < b->locals.len; i++)
		if (vec_get(&b->locals, i) == v)
			return;
	vec_push(&b->locals, v);
}

Label *body_label(Body *b, const char *stem)
{
	Label *l = NEW(Label);
	l->name = xsprintf("%s_%d", stem, b->nlabels++);
	return l;
}

void body_put_label(Emitter *e, Label *l)
{
	if (!l->used)
		return;
	/* labels sit at the outer indentation, as kernel code has them */
	sb_printf(e->out, "%s: ;\n", l->name);
}

const char *body_goto(Label *l)
{
	l->used = true;
	return xsprintf("goto %s;", l->name);
}

const char *body_err_goto(Body *b)
{
	return body_goto(vec_last(&b->errs));
}

/* ---- temporaries in the frame ---- */

const char *body_tmp_long(Body *b)
{
	const char *t = xsprintf("l->n[%d]", b->nlong++);
	if (b->nlong > b->max_long)
		b->max_long = b->nlong;
	return t;
}

const char *body_tmp_str(Body *b)
{
	const char *t = xsprintf("l->s[%d]", b->nstr++);
	if (b->nstr > b->max_str)
		b->max_str = b->nstr;
	return t;
}

const char *body_tmp_key(Body *b)
{
	const char *t = xsprintf("l->k[%d]", b->nkey++);
	if (b->nkey > b->max_key)
		b->max_key = b->nkey;
	return t;
}

/* ---- errors ---- */

/* Set c->last_stmt: the script place an error report names. */
void body_where(Body *b, Loc loc, const char *what)
{
	emit(b->e, "c->last_stmt = %s;", emit_loc_text(loc, what));
}

/* `if (call) goto <error target>;`: call is nonzero after an error. */
void body_fail_if(Body *b, const char *call)
{
	emit(b->e, "if (%s)", call);
	emit(b->e, "\t%s", body_err_goto(b));
}

Val body_error(Body *b, Loc loc, const char *msg)
{
	emit_error_at(b->e, loc, "%s", msg);
	return val_num(0);
}
