package dev.outbox.relay;

/** The type of the queues the relay declares for job routes. */
public enum QueueType {
    /** Classic queues: declared without arguments (every AMQP 0-9-1 broker accepts them). */
    CLASSIC,
    /** Quorum queues: declared with {@code x-queue-type: quorum} (RabbitMQ only). */
    QUORUM
}
