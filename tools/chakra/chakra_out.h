/*
 * chakra_out: the export half of chakra(1), an op stream on standard
 * input to Chakra files <prefix>.<rank>.et and <prefix>.json (see
 * tools/chakra/chakra_out.c).  chakra_export() reads the whole stream, writes
 * the files, and dies with a message on bad input or a failed write.
 */
#ifndef CHAKRA_OUT_H
#define CHAKRA_OUT_H

void	chakra_export(const char *, int, char **);

#endif
