// Clang's thread-safety attributes (-Wthread-safety), as Abseil's and LevelDB's: they let the
// compiler check that a member documented as guarded by a mutex is only touched with that mutex
// held, and that a function documented as needing (or not holding) a lock is called so.
// Under g++ every macro expands to nothing; CI's clang builds turn the analysis on with -Werror.
#pragma once

#if defined(__clang__)
#define VERDICT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define VERDICT_THREAD_ANNOTATION(x)
#endif

// On a class: objects of it are a capability (a lock) named `x` in diagnostics.
#define CAPABILITY(x) VERDICT_THREAD_ANNOTATION(capability(x))
// On a class: an RAII object that holds a capability for its lifetime.
#define SCOPED_CAPABILITY VERDICT_THREAD_ANNOTATION(scoped_lockable)
// On a member: reads need the lock held shared, writes held exclusively.
#define GUARDED_BY(x) VERDICT_THREAD_ANNOTATION(guarded_by(x))
// On a pointer member: the pointed-to data is guarded (the pointer itself is not).
#define PT_GUARDED_BY(x) VERDICT_THREAD_ANNOTATION(pt_guarded_by(x))
// On a mutex member: lock order. This one is taken before / after the named ones.
#define ACQUIRED_BEFORE(...) VERDICT_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) VERDICT_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
// On a function: callers must hold the lock (exclusively / shared) when calling.
#define REQUIRES(...) VERDICT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) VERDICT_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
// On a function: it takes / releases the lock and returns with it held / not held.
#define ACQUIRE(...) VERDICT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) VERDICT_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) VERDICT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) VERDICT_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) VERDICT_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) VERDICT_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) \
  VERDICT_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))
// On a function: callers must not hold the lock (it takes it itself; taking it twice deadlocks).
#define EXCLUDES(...) VERDICT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// On a function: tells the analysis the lock is held from here on (checked at run time by the
// function itself in debug builds).
#define ASSERT_CAPABILITY(x) VERDICT_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) VERDICT_THREAD_ANNOTATION(assert_shared_capability(x))
// On a function: it returns a reference to the named lock.
#define RETURN_CAPABILITY(x) VERDICT_THREAD_ANNOTATION(lock_returned(x))
// On a function: the analysis skips its body. Each use says why in a comment.
#define NO_THREAD_SAFETY_ANALYSIS VERDICT_THREAD_ANNOTATION(no_thread_safety_analysis)
