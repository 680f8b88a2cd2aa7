/**
 * The worker's implementation, not an API: the consumer of each queue, the processing of one message,
 * the grouped completion writer and the worker's transitions of the delivery state machine
 * ({@link dev.outbox.delivery.internal.WorkerTransitions}: T5 completed, T6 retry-or-fail, T7 failed,
 * T8 worker died).
 */
@NullMarked
package dev.outbox.worker.internal;

import org.jspecify.annotations.NullMarked;
