/*
 * json: print a decoded msgpack object as one line of JSON.
 *
 * Maps keep their key order; non-string keys are printed as strings of
 * their JSON text; binary becomes a string of hex digits; NaN and
 * infinities become null.  Output goes through stdio; the caller
 * checks the stream for write errors.
 */
#ifndef JSON_H
#define JSON_H

#include <stdio.h>

#include <msgpack.h>

void	json_print(FILE *, const msgpack_object *);
void	json_print_str(FILE *, const char *, size_t);

#endif
