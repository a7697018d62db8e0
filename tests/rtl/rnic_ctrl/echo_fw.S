/* Test program for the control processor's module test (tb.sv): boots, writes
 * FW_STATE, then serves the command mailbox:
 *   opcode 0xee   load from an unmapped address (the bus error must halt it)
 *   opcode 0x77   write CTX_DATA[0] = IN[0], then CTX_CMD = IN[1]
 *   other         OUT[i] = IN[i] * 3 + opcode for i < 31 (RV32M multiply),
 *                 OUT[31] = commands served so far (a counter kept in RAM)
 * and ends each command with CMD_DONE status = opcode ^ 0x5a.
 * Register offsets are BAR0 offsets from docs/regs.md (cmd and ctx blocks);
 * tb.sv checks them against rnic_pkg. */
	.equ REG_BASE, 0x10000000
	.equ CTX_CMD, 0x20c
	.equ CTX_DATA, 0x280
	.equ CMD_STATUS, 0x610
	.equ CMD_DONE, 0x614
	.equ CMD_OPCODE, 0x618
	.equ FW_STATE, 0x61c
	.equ CMD_IN, 0x680
	.equ CMD_OUT, 0x700
	.equ COUNTER, 0x7f0

	.section .text
	.globl _start
_start:
	li	s0, REG_BASE
	li	t0, 0x00010002
	sw	t0, FW_STATE(s0)
	sw	zero, COUNTER(zero)
poll:
	lw	t0, CMD_STATUS(s0)
	andi	t0, t0, 1
	beqz	t0, poll
	lw	t1, CMD_OPCODE(s0)
	andi	t2, t1, 0xff
	li	t3, 0xee
	beq	t2, t3, bad
	li	t3, 0x77
	beq	t2, t3, ctx
	li	t4, 0
	li	t5, 31
	addi	a0, s0, CMD_IN
	addi	a1, s0, CMD_OUT
	li	a3, 3
echo:
	lw	a2, 0(a0)
	mul	a2, a2, a3
	add	a2, a2, t2
	sw	a2, 0(a1)
	addi	a0, a0, 4
	addi	a1, a1, 4
	addi	t4, t4, 1
	blt	t4, t5, echo
	lw	a4, COUNTER(zero)
	addi	a4, a4, 1
	sw	a4, COUNTER(zero)
	sw	a4, 0(a1)
done:
	xori	a4, t2, 0x5a
	slli	a4, a4, 8
	sw	a4, CMD_DONE(s0)
	j	poll
ctx:
	lw	a2, CMD_IN(s0)
	sw	a2, CTX_DATA(s0)
	lw	a2, CMD_IN+4(s0)
	sw	a2, CTX_CMD(s0)
	j	done
bad:
	li	a5, 0x20000000
	lw	a6, 0(a5)
	j	done
