/* upinsn.S: functions of known instructions for the .offset cases
 * (insn.stp): tap_triple is 1+3+3+1+1+1 bytes (offsets 0 1 4 7 8 9),
 * tap_one 5+1 (0 5), tap_trap 5+1+1 (0 5 6): its last instruction, an
 * int3 never reached, is one the kernel will not put a uprobe on. */
	.text
	.globl	tap_triple
	.type	tap_triple, @function
tap_triple:
	push	%rbp
	mov	%rsp, %rbp
	lea	(%rdi,%rdi,2), %eax
	nop
	pop	%rbp
	ret
	.size	tap_triple, .-tap_triple

	.globl	tap_one
	.type	tap_one, @function
tap_one:
	mov	$1, %eax
	ret
	.size	tap_one, .-tap_one

	.globl	tap_trap
	.type	tap_trap, @function
tap_trap:
	mov	$2, %eax
	ret
	int3
	.size	tap_trap, .-tap_trap

	.section .note.GNU-stack,"",@progbits
