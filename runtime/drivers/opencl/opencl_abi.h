/* What the OpenCL kernel (vta.cl) and its host driver (opencl_driver.cc) share: the layout of the
 * machine-state buffer, of one decoded instruction, and the codes. Plain #defines, so the same
 * text is valid C++ and OpenCL C; the build prepends it to vta.cl when it embeds the kernel
 * (embed_kernel.cmake), and a change here changes the binary cache key with the source. */
#ifndef LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_ABI_H_
#define LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_ABI_H_

/* Codes of docs/isa.md §2.4 and the modules and queues of §1.1 and §1.3 (isa::Opcode, ...). */
#define OP_LOAD 0
#define OP_STORE 1
#define OP_GEMM 2
#define OP_FINISH 3
#define OP_ALU 4
#define BUF_UOP 0
#define BUF_WGT 1
#define BUF_INP 2
#define BUF_ACC 3
#define BUF_OUT 4
#define ALU_MIN 0
#define ALU_MAX 1
#define ALU_ADD 2
#define ALU_SHR 3
#define ALU_SHR_RND 4
#define ALU_MUL 5
#define ALU_REQUANT 6
#define ALU_RQPARAM 7
#define RQP_DEPTH 32 /* isa::kRqParamDepth */
#define BUF_RQP 5    /* ERR_INDEX's code for the parameter buffer */
#define MOD_LOAD 0
#define MOD_COMPUTE 1
#define MOD_STORE 2
#define Q_LOAD_TO_COMPUTE 0
#define Q_COMPUTE_TO_LOAD 1
#define Q_COMPUTE_TO_STORE 2
#define Q_STORE_TO_COMPUTE 3

/* The machine state (64-bit words): the run's progress, kept between launches. */
#define S_PHASE 0    /* PHASE_* */
#define S_ERR_CODE 1 /* ERR_* when PHASE_ERROR */
#define S_ERR_INSN 2 /* the instruction the error names */
#define S_ERR_A 3    /* values the message names (see ERR_*) */
#define S_ERR_B 4
#define S_FETCH 5      /* instructions fetched so far */
#define S_NEXT 6       /* [3] per module: instructions started */
#define S_COUNT 9      /* [3] per module: its instructions in the stream */
#define S_BASE 12      /* [3] per module: where its list starts in `order` */
#define S_PEND_N 15    /* [3] per module: pushes waiting for room */
#define S_PEND_Q 18    /* [3][2] per module: the queues of those pushes, oldest first */
#define S_TOKENS 24    /* [4] per queue: tokens held */
#define S_BUSY_INSN 28 /* the instruction started and not completed, or 0xffffffff */
#define S_BUSY_ITER 29 /* GEMM/ALU: its next loop iteration (i0 * loop_in + i1) */
#define S_INSNS 30     /* [3] per module: instructions completed */
#define S_BYTES_LOADED 33
#define S_BYTES_STORED 34
#define S_MACS 35
#define S_FINISH_INSN 36
#define S_EPI_INSN 37  /* a fused REQUANT armed the next GEMM's epilogue: its index + 1, else 0 */
#define S_EPI_ENTRY 38 /* and its last iteration's parameter entry */
#define S_WORDS 40

#define PHASE_START 0 /* nothing decoded yet */
#define PHASE_RUNNING 1
#define PHASE_DONE 2 /* FINISH retired; the host checks the token queues */
#define PHASE_ERROR 3

/* Errors. A: S_ERR_A, B: S_ERR_B. */
#define ERR_DECODE 1       /* the word breaks a static rule; the host's isa::Decode says which */
#define ERR_FINISH_EARLY 2 /* FINISH before the end; A: instructions after it */
#define ERR_NO_FINISH 3    /* the last instruction is not FINISH */
#define ERR_DMA_READ 4     /* A: DRAM byte address, B: bytes */
#define ERR_DMA_WRITE 5    /* A: DRAM byte address, B: bytes */
#define ERR_INDEX 6        /* A: buffer code, B: index */
#define ERR_UOP 7          /* A: the micro-op word with reserved bits set */
#define ERR_DEADLOCK 8     /* no module can make progress */
#define ERR_DEPTHWISE 9    /* a depthwise GEMM on a config with block_in != block_out */
#define ERR_EPILOGUE 10    /* an ALU or FINISH while a fused REQUANT waits for its GEMM */

/* One decoded instruction (32-bit words). */
#define P_OP 0
#define P_FLAGS 1 /* bit 0 pop_prev, 1 pop_next, 2 push_prev, 3 push_next */
#define P_MODULE 2
#define P_POS 3 /* position in its module's list */
#define P_BUFFER 4
#define P_SRAM 5
#define P_DRAM 6
#define P_Y 7
#define P_X 8
#define P_STRIDE 9
#define P_PAD_TOP 10
#define P_PAD_BOTTOM 11
#define P_PAD_LEFT 12
#define P_PAD_RIGHT 13
#define P_RESET 14
#define P_ALU_OP 15
#define P_USE_IMM 16
#define P_UOP_BGN 17
#define P_UOP_END 18
#define P_LOOP_OUT 19
#define P_LOOP_IN 20
#define P_DST_OUT 21
#define P_DST_IN 22
#define P_SRC_OUT 23
#define P_SRC_IN 24
#define P_WGT_OUT 25
#define P_WGT_IN 26
#define P_IMM 27
#define P_PRE_SHIFT 28 /* REQUANT: these four, sign-extended, instead of src factors and imm */
#define P_POST_SHIFT 29
#define P_CLIP_LO 30
#define P_CLIP_HI 31
#define P_PAD_VALUE 32 /* LOAD/STORE: sign-extended; nonzero only on INP loads */
#define P_DEPTHWISE 33 /* GEMM */
#define P_CLEAR 34     /* REQUANT: leave ACC zero */
#define P_FUSE 35      /* REQUANT: arm the next GEMM's epilogue (needs P_CLEAR) */
#define P_WORDS 36

#endif /* LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_ABI_H_ */
