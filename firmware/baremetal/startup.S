/* Reset and exception entry for the Cortex-A9 image: vector table, stacks, VFP/NEON on, .bss
 * clear, the MMU and caches on (mmu_a9.cc), static constructors, main, exit. Starts with the MMU
 * and caches off, the state a boot loader or QEMU's -kernel leaves.
 * ARM state: exception entry is ARM on this core (SCTLR.TE = 0); C and C++ code is Thumb-2. */
  .syntax unified
  .arm

  .section .vectors, "ax"
  .global _loom_vectors
_loom_vectors:
  b _loom_reset
  b _loom_undef
  b _loom_svc
  b _loom_pabort
  b _loom_dabort
  b _loom_reserved
  b _loom_irq
  b _loom_fiq

  .text
_loom_reset:
  cpsid if
  /* Core 1 (on a board the boot ROM releases it too) waits forever; one core runs the image. */
  mrc p15, 0, r0, c0, c0, 5       /* MPIDR */
  ands r0, r0, #3
  bne _loom_park
  /* Exceptions come to this table wherever it was loaded. */
  ldr r0, =_loom_vectors
  mcr p15, 0, r0, c12, c0, 0      /* VBAR */
  mrc p15, 0, r0, c1, c0, 0       /* SCTLR: V = 0 (VBAR), A = 0 */
  bic r0, r0, #(1 << 13)
  bic r0, r0, #(1 << 1)
  mcr p15, 0, r0, c1, c0, 0
  isb
  /* One small stack shared by every exception mode (a fault ends the run), the main stack for SVC. */
  ldr r1, =__exc_stack_top
  cps #0x17                        /* abort */
  mov sp, r1
  cps #0x1b                        /* undefined */
  mov sp, r1
  cps #0x12                        /* IRQ */
  mov sp, r1
  cps #0x11                        /* FIQ */
  mov sp, r1
  cps #0x13                        /* supervisor */
  ldr sp, =__stack_top
  /* VFP and NEON: full access to cp10/cp11, then FPEXC.EN. */
  mrc p15, 0, r0, c1, c0, 2       /* CPACR */
  orr r0, r0, #(0xf << 20)
  mcr p15, 0, r0, c1, c0, 2
  isb
  mov r0, #0x40000000
  vmsr fpexc, r0
  /* .bss is zero in C++'s eyes; a loader does not promise it. */
  ldr r0, =__bss_start
  ldr r1, =__bss_end
  mov r2, #0
1:
  cmp r0, r1
  strlo r2, [r0], #4
  blo 1b
  /* Flat map, caches on (mmu_a9.cc). */
  ldr r3, =loom_mmu_enable
  blx r3
  ldr r3, =__libc_init_array
  blx r3
  mov r0, #0
  mov r1, #0
  ldr r3, =main
  blx r3
  ldr r3, =exit
  blx r3
_loom_park:
  wfe
  b _loom_park

/* Semihosting calls arrive here only when no debugger or emulator takes them: report "not
 * available" (r0 = -1) and return past the SVC. */
_loom_svc:
  mvn r0, #0
  movs pc, lr

/* Faults end the run: loom_fault(kind, pc, fault address) prints and exits. */
_loom_undef:
  mov r0, #1
  sub r1, lr, #4
  mov r2, #0
  b _loom_fault_common
_loom_pabort:
  mov r0, #2
  sub r1, lr, #4
  mrc p15, 0, r2, c6, c0, 2       /* IFAR */
  b _loom_fault_common
_loom_dabort:
  mov r0, #3
  sub r1, lr, #8
  mrc p15, 0, r2, c6, c0, 0       /* DFAR */
  b _loom_fault_common
_loom_reserved:
_loom_irq:
_loom_fiq:
  mov r0, #4
  sub r1, lr, #4
  mov r2, #0
_loom_fault_common:
  ldr r3, =loom_fault
  blx r3
  b _loom_park

/* newlib's __libc_init_array calls these (crti/crtn are not linked: -nostartfiles). */
  .global _init
  .global _fini
  .type _init, %function
  .type _fini, %function
_init:
_fini:
  bx lr

/* The handle static destructors register against (crtbegin.o provides it in a hosted link). */
  .data
  .balign 4
  .global __dso_handle
__dso_handle:
  .word 0
