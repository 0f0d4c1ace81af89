#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func dotsInt8AVX2(codes *int8, q *int16, dims, n int, out *int32)
//
// Per row: 64 codes per iteration (after 32 when dims is an odd multiple of 32), sign-extended to int16 (VPMOVSXBW), multiplied by the int16
// query and summed in pairs into int32 lanes (VPMADDWD), in two accumulators; then a horizontal
// sum of the eight lanes.
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-40
	MOVQ codes+0(FP), SI
	MOVQ q+8(FP), DX
	MOVQ dims+16(FP), CX
	MOVQ n+24(FP), BX
	MOVQ out+32(FP), DI

row:
	TESTQ BX, BX
	JZ    done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVQ  DX, R8
	MOVQ  CX, R9

	TESTQ $32, R9
	JZ    loop64
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  (R8), Y2, Y2
	VPMADDWD  32(R8), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $64, R8
	SUBQ      $32, R9
	JZ        sum

loop64:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMOVSXBW 32(SI), Y4
	VPMOVSXBW 48(SI), Y5
	VPMADDWD  (R8), Y2, Y2
	VPMADDWD  32(R8), Y3, Y3
	VPMADDWD  64(R8), Y4, Y4
	VPMADDWD  96(R8), Y5, Y5
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	ADDQ      $64, SI
	ADDQ      $128, R8
	SUBQ      $64, R9
	JNZ       loop64

sum:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, (DI)
	ADDQ         $4, DI
	DECQ         BX
	JMP          row

done:
	VZEROUPPER
	RET
