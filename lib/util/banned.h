#ifndef KB_BANNED_H
#define KB_BANNED_H

/*
 * Functions that invite overflows or silent misparses.  Every .c file of
 * lib/ and cmd/ includes this header after all others (`make lint` checks),
 * so that a use is a compile error.  Use snprintf, kb_buf, kb_asprintf and
 * strtol/strtoul with end-pointer checks instead.
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef gets
#define gets(x) BANNED(gets)

#endif
