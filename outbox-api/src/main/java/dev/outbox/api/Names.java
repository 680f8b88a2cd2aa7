package dev.outbox.api;

import java.util.regex.Pattern;

/** The one rule for event type and job type names, shared by every check. */
public final class Names {

    public static final Pattern STABLE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}");

    private Names() {}

    public static boolean isStableName(String name) {
        return STABLE_NAME.matcher(name).matches();
    }
}
