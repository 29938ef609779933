/* emit_glue.h - pass 3's side of the probe families: what a family file
 * that writes code includes (emit.h, the contract between pass 3 and the
 * families, and the helpers of emit_glue.c).  Pass 2 code never includes
 * it.
 */
#ifndef TAPC_FAMILIES_EMIT_GLUE_H
#define TAPC_FAMILIES_EMIT_GLUE_H

#include "emit/emit.h"
#include "family.h"

/* The registration flags for the runtime tables: "0", "TAP_PROBE_OPTIONAL"
 * ... (see runtime/families/probe_common.h). */
const char *emit_point_flags(const ResolvedPoint *rp);
/* The C statements that fill the public context fields a family knows
 * (regs, user_regs, probe_type, is_return), indented one level. */
void emit_context_fill(Emitter *e, const char *regs, const char *type,
		       bool is_return);
/* A handler returning void that runs probe ep: "static void NAME(PARAMS)"
 * entering the probe's context (returning when it is busy), filling it
 * (regs, type, is_return: as emit_context_fill), running the body with the
 * pointer expression body_arg, and leaving; a blank line after. */
void emit_void_handler(Emitter *e, const EmitProbe *ep, const char *name,
		       const char *params, const char *regs, const char *type,
		       bool is_return, const char *body_arg);

#endif
