/**
 * The relay as a service of its own: {@link dev.outbox.relay.cli.RelayCommand} (the main class of
 * {@code outbox-relay.jar}) with the {@code relay}, {@code status} and {@code migrate} commands,
 * configured from {@code OUTBOX_*} environment variables and an optional properties file.
 */
@NullMarked
package dev.outbox.relay.cli;

import org.jspecify.annotations.NullMarked;
