/* A run's budget of tokens and seconds, judged before each model call. */
#include "agent/run/budget.h"

#include <stdio.h>

bool budget_spent(const struct budget *b, const struct budget_use *u, char *why, size_t cap)
{
    if (u->turns == 0)
        return false;
    if (b->tokens > 0 && u->tokens + u->last_tokens > b->tokens) {
        snprintf(why, cap, "budget spent: %lld tokens of %lld (a turn takes about %lld)", u->tokens,
                 b->tokens, u->last_tokens);
        return true;
    }
    if (b->seconds > 0 && u->seconds + u->last_seconds > b->seconds) {
        snprintf(why, cap, "budget spent: %.1f s of %g s (a turn takes about %.1f s)", u->seconds,
                 b->seconds, u->last_seconds);
        return true;
    }
    return false;
}

static long long min_tokens(long long a, long long b)
{
    return a <= 0 ? b : b <= 0 ? a : a < b ? a : b;
}

static double min_seconds(double a, double b)
{
    return a <= 0 ? b : b <= 0 ? a : a < b ? a : b;
}

struct budget budget_min(struct budget a, struct budget b)
{
    return (struct budget){min_tokens(a.tokens, b.tokens), min_seconds(a.seconds, b.seconds)};
}

void budget_describe(const struct budget *b, char *out, size_t cap)
{
    if (b->tokens > 0 && b->seconds > 0)
        snprintf(out, cap, "%lld tokens, %g s", b->tokens, b->seconds);
    else if (b->tokens > 0)
        snprintf(out, cap, "%lld tokens", b->tokens);
    else if (b->seconds > 0)
        snprintf(out, cap, "%g s", b->seconds);
    else
        snprintf(out, cap, "none");
}
