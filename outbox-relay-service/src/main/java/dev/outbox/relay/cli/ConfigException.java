package dev.outbox.relay.cli;

import dev.outbox.api.OutboxException;

/** A missing or bad setting; the message is one line that starts with the setting's name. */
final class ConfigException extends OutboxException {

    private static final long serialVersionUID = 1L;

    ConfigException(String setting, String problem) {
        super(setting + ": " + problem.replace('\n', ' ').replace('\r', ' '));
    }

    /** From a check whose message already starts with the setting's name. */
    ConfigException(IllegalArgumentException named) {
        super(String.valueOf(named.getMessage()).replace('\n', ' ').replace('\r', ' '));
    }
}
