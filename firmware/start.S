/* OpenRNIC firmware: crt0 for the PicoRV32 (RV32IM) at FW_RESET_PC.
 * The image is loaded into the RAM at build time, .data included, so
 * nothing is copied: set the stack at the top of the RAM, zero .bss, call
 * main; a return from main (or a trap) ends in a loop. */
	.section .text.start, "ax"
	.global _start
_start:
	la	sp, __stack_top
	la	a0, __bss_start
	la	a1, __bss_end
	/* eight words per turn: the tables are ~96 KiB and the core takes
	 * several cycles per instruction */
1:	bgeu	a0, a1, 2f
	sw	zero, 0(a0)
	sw	zero, 4(a0)
	sw	zero, 8(a0)
	sw	zero, 12(a0)
	sw	zero, 16(a0)
	sw	zero, 20(a0)
	sw	zero, 24(a0)
	sw	zero, 28(a0)
	addi	a0, a0, 32
	j	1b
2:	call	main
3:	j	3b
