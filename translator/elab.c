/* elab.c - pass 2's driver: load the tapsets the script reaches, expand
 * probe aliases into concrete probes (derive.c), bind every name
 * (resolve.c), check context variables (ctxvars.c), then let optimize.c
 * and types.c finish.  The state they share is elab_state.c's.
 *
 * Order matters and follows what scripts expect of stap: names are bound
 * first; then @defined is decided and, unless -u, code without effect is
 * dropped; only what is left is checked for context variables and types
 * (so a dropped "$nosuchvar" or a dead "b + 2" is no error).
 */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

/* ---- the resolution loop ---- */

static int bound_probes;

void bind_pending(void)
{
	for (;;) {
		if (pending_probes.len) {
			Probe *p = vec_get(&pending_probes, 0);
			memmove(pending_probes.data, pending_probes.data + 1,
				sizeof(void *) * --pending_probes.len);
			derive_probe(p);
			continue;
		}
		if (bound_probes < derived.len) {
			Derived *dv = vec_get(&derived, bound_probes++);
			Scope *sc = new_scope(dv->probe, NULL);
			vec_push(&elab.scopes, sc);
			ProbePoint *cp = vec_get(&dv->probe->points, 0);
			if (cp->condition)
				check_condition_node(&cp->condition, sc);
			bind_scope(sc, dv->probe->body);
			continue;
		}
		if (func_queue.len) {
			Func *f = vec_get(&func_queue, 0);
			memmove(func_queue.data, func_queue.data + 1,
				sizeof(void *) * --func_queue.len);
			for (int i = 0; i < f->params.len; i++) {
				Var *v = vec_get(&f->params, i);
				v->scope = VS_PARAM;
				v->arity = 0;
				v->file = f->file;
			}
			Scope *sc = new_scope(NULL, f);
			vec_push(&elab.scopes, sc);
			bind_scope(sc, f->body);
			continue;
		}
		break;
	}
}

/* ---- the entry point ---- */

void init_program(Vec *user_files)
{
	elab_state_init(user_files);
	if (sess.unoptimized)
		for (int i = 0; i < func_pool.len; i++)
			queue_func(vec_get(&func_pool, i));
}

static void collect_program(void)
{
	Program *prog = elab.prog;
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->probe)
			vec_push(&prog->probes, sc->probe);
		else if (sc->func->used)
			vec_push(&prog->funcs, sc->func);
	}
	for (int i = 0; i < global_pool.len; i++) {
		Var *v = vec_get(&global_pool, i);
		if (v->read || v->written || (sess.unoptimized && !v->from_tapset))
			vec_push(&prog->globals, v);
	}
	for (int i = 0; i < prog->files.len; i++) {
		Stapfile *f = vec_get(&prog->files, i);
		for (int j = 0; j < f->embeds.len; j++)
			vec_push(&prog->embeds, vec_get(&f->embeds, j));
	}
}

Program *elaborate(Vec *user_files)
{
	init_program(user_files);
	bind_pending();
	if (error_count)
		return NULL;
	optimize_before_types();
	if (error_count)
		return NULL;
	check_contexts();
	check_foreach_all();
	if (error_count)
		return NULL;
	infer_types();
	if (error_count)
		return NULL;
	optimize_after_types();
	if (error_count)
		return NULL;
	collect_program();
	if (!elab.prog->probes.len && !elab.listing) {
		error_plain(_("no probes found"));
		return NULL;
	}
	return elab.prog;
}

