package dev.outbox.api;

import java.util.regex.Pattern;

/**
 * The one rule for NOTIFY channel names, shared by the recording API (which notifies) and the relay
 * (which listens): a lower-case identifier, so that both sides name the same channel.
 */
public final class NotifyChannels {

    /** The rule, for messages. */
    public static final String RULE = "a lower-case identifier [a-z_][a-z0-9_]{0,62}";

    private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private NotifyChannels() {}

    public static boolean isValid(String channel) {
        return CHANNEL.matcher(channel).matches();
    }
}
