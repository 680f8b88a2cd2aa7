package dev.outbox.flyway;

/**
 * How a refused schema, table or role name is shown in its exception: as written when it is short
 * and printable ASCII (what a typo looks like), otherwise only by its length, so that a value from
 * outside can neither flood a log nor end its line. This module sits below outbox-api and its
 * {@code LogText}, and a name here never needs more than that.
 */
final class RefusedNames {

    /** The longest name shown as written: PostgreSQL's identifiers are at most 63 bytes. */
    static final int SHOWN = 63;

    private RefusedNames() {}

    static String shown(String value) {
        if (value.length() <= SHOWN && value.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')) {
            return "'" + value + "'";
        }
        return "a value of " + value.length() + " characters that is not one";
    }
}
