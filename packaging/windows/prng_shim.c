/* Test-only: wine 8 lacks bcryptprimitives.dll, whose ProcessPrng every Go >= 1.22 Windows
   binary loads at start. This stand-in answers it with advapi32's RtlGenRandom
   (SystemFunction036). It is copied into the test's wine prefix only; it is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
