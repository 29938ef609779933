/* names.c - pass 3: the C names of script things, one per Var and Func
 * for the whole file (a global "tapg_x", a local "v_x" in the frame, a
 * function "tapf_x"; a second script thing with the same C name gets
 * "_2" and so on), and the C references to them.
 */
#include "emit_priv.h"

typedef struct NameEntry {
	const void *key;
	const char *name;
} NameEntry;

static bool name_taken(Emitter *e, const char *n)
{
	for (int i = 0; i < e->used_names.len; i++)
		if (vec_get(&e->used_names, i) == n)
			return true;
	return false;
}

/* A unique name for key (a Var or Func), made once. */
static const char *unique_name(Emitter *e, const void *key, const char *prefix,
			       const char *base)
{
	for (int i = 0; i < e->names.len; i++) {
		NameEntry *ne = vec_get(&e->names, i);
		if (ne->key == key)
			return ne->name;
	}
	const char *n = intern(xsprintf("%s%s", prefix, base));
	for (int k = 2; name_taken(e, n); k++)
		n = intern(xsprintf("%s%s_%d", prefix, base, k));
	vec_push(&e->used_names, (void *)n);
	NameEntry *ne = NEW(NameEntry);
	ne->key = key;
	ne->name = n;
	vec_push(&e->names, ne);
	return n;
}

const char *names_var(Emitter *e, Var *v)
{
	if (v->scope == VS_GLOBAL)
		return unique_name(e, v, "tapg_", v->name);
	return xsprintf("v_%s", v->name);
}

const char *names_var_ref(Emitter *e, Var *v)
{
	if (v->scope == VS_GLOBAL)
		return xsprintf("%s.v", names_var(e, v));
	return xsprintf("l->%s", names_var(e, v));
}

const char *names_func(Emitter *e, Func *f)
{
	return unique_name(e, f, "tapf_", f->name);
}

/* "&tapg_x.m->spec": a global's statistics spec at run time (what its
 * histogram and @variance need). */
const char *names_stat_spec(Emitter *e, Var *v)
{
	return xsprintf("&%s.%s->spec", names_var(e, v), v->arity > 0 ? "m" : "s");
}
