/* Test-only: holds a file open the way an editor or a viewer does on Windows (read access,
   others may read but not write or delete it) until its standard input closes, so the Windows
   checks can save over a file another program has open. Prints "holding" once it has it. */
#include <windows.h>
#include <stdio.h>

int wmain(int argc, wchar_t **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: hold_file PATH\n");
		return 2;
	}
	HANDLE h = CreateFileW(argv[1], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "hold_file: cannot open: error %lu\n", GetLastError());
		return 1;
	}
	printf("holding\n");
	fflush(stdout);
	char buf[64];
	while (fgets(buf, sizeof buf, stdin) != NULL) {
	}
	CloseHandle(h);
	return 0;
}
