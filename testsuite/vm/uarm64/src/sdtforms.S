/* sdtforms.S - an SDT marker whose operands are written by hand in every
 * form gcc prints for aarch64, so each is read whatever a compiler
 * chooses: a register (x1), a 32-bit register (w3), memory at sp plus
 * an offset, at the frame pointer minus one, through a pointer
 * register, constants, and the zero register.  The note follows the
 * SDT ABI (.note.stapsdt: the marker's pc, .stapsdt.base, no semaphore;
 * provider, name, operands).
 *
 * long forms(long *p, long v): stores -5 (32 bits) at sp + 12 and v at
 * x29 - 8 (sp + 24), sets w3 to -9, marks, returns v + *p. */
	.text
	.globl	forms
	.type	forms, %function
forms:
	sub	sp, sp, #48
	stp	x29, x30, [sp, #32]
	add	x29, sp, #32
	mov	w2, #-5
	str	w2, [sp, #12]
	str	x1, [x29, #-8]
	mov	w3, #-9
1:	nop
	ldr	x2, [x0]
	add	x0, x1, x2
	ldp	x29, x30, [sp, #32]
	add	sp, sp, #48
	ret
	.size	forms, .-forms

	.pushsection .note.stapsdt, "", %note
	.balign	4
	.4byte	3f - 2f, 5f - 4f, 3
2:	.asciz	"stapsdt"
3:	.balign	4
4:	.8byte	1b, _.stapsdt.base, 0
	.asciz	"forms"
	.asciz	"operands"
	.asciz	"8@x1 -4@[sp, 12] 8@[x29, -8] 8@[x0] -4@w3 -4@-7 2@300 8@xzr"
5:	.balign	4
	.popsection

	.pushsection .stapsdt.base, "aG", %progbits, .stapsdt.base, comdat
	.weak	_.stapsdt.base
	.hidden	_.stapsdt.base
_.stapsdt.base:
	.space	1
	.size	_.stapsdt.base, 1
	.popsection

	.section .note.GNU-stack, "", %progbits
