/*
 * fuzz.h: what the libFuzzer targets of tests/fuzz share.
 *
 * Each target is one file, fuzz_NAME.c, that defines
 * LLVMFuzzerTestOneInput() and hands the input to the library's own
 * reading functions through a memory FILE.  Bad input must come back
 * as an error return, never as exit(), a crash, a sanitizer report or
 * a leak.  Streams the readers pass through go to /dev/null.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "records/stream.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The input as a FILE to read; an empty input reads as /dev/null. */
static FILE *
fuzz_open(const uint8_t *data, size_t size)
{
	FILE *fp;

	if (size == 0)
		fp = fopen("/dev/null", "r");
	else
		fp = fmemopen((void *)(uintptr_t)data, size, "r");
	if (fp == NULL) {
		perror("fuzz: fmemopen");
		abort();
	}
	return fp;
}

/* A writer for what a filter passes through; closed by the caller. */
static __attribute__((unused)) struct stream_writer *
fuzz_writer(void)
{
	static FILE *devnull;
	struct stream_writer *w;

	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL) {
		perror("fuzz: /dev/null");
		abort();
	}
	if ((w = stream_writer(devnull)) == NULL)
		abort();
	return w;
}

#endif
