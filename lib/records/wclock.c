/* wclock: wall-clock seconds for time limits and reports. */
#include <time.h>

#include "records/wclock.h"

double
wclock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
