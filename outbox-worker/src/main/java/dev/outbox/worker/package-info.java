/**
 * The worker SDK a job service embeds: {@link dev.outbox.worker.OutboxWorker} consumes the outbox's job
 * queues, calls the {@link dev.outbox.worker.JobHandler} registered for each job type and writes the
 * outcome back to the deliveries table with conditional statements (completed, retry or failed),
 * acknowledging a message only once the database holds its outcome. {@link dev.outbox.worker.Inbox} is
 * the optional helper of idempotent consumers.
 */
@NullMarked
package dev.outbox.worker;

import org.jspecify.annotations.NullMarked;
