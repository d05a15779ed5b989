/*
 * pbsplit: split a file of varint-length-delimited protobuf messages,
 * as a Chakra trace is, into one file a message, for protoc --decode.
 *
 *	pbsplit FILE OUT
 *
 * writes OUT.0, OUT.1, ... and prints how many.  It shares no code with
 * lib/records/pbwire, whose writer the tests check through it.  Exit 1 on a
 * truncated or overlong length, 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int
varint(FILE *fp, uint64_t *v)
{
	int c, shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if ((c = getc(fp)) == EOF)
			return shift == 0 ? 0 : -1;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	char path[4096];
	FILE *in, *out;
	uint64_t len, i;
	unsigned long n = 0;
	int r, c;

	if (argc != 3) {
		fprintf(stderr, "usage: pbsplit file out\n");
		return 2;
	}
	if ((in = fopen(argv[1], "rb")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	while ((r = varint(in, &len)) > 0) {
		snprintf(path, sizeof(path), "%s.%lu", argv[2], n++);
		if (len > (1U << 26) || (out = fopen(path, "wb")) == NULL) {
			fprintf(stderr, "pbsplit: %s: frame of %llu bytes\n",
			    path, (unsigned long long)len);
			return 1;
		}
		for (i = 0; i < len; i++) {
			if ((c = getc(in)) == EOF) {
				fprintf(stderr, "pbsplit: truncated frame\n");
				return 1;
			}
			putc(c, out);
		}
		if (fclose(out) != 0) {
			perror(path);
			return 1;
		}
	}
	if (r < 0) {
		fprintf(stderr, "pbsplit: bad length varint\n");
		return 1;
	}
	printf("%lu\n", n);
	return 0;
}
