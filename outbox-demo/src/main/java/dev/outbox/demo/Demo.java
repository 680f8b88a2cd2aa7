package dev.outbox.demo;

/** The end-to-end demo; it arrives with the relay and the worker. */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) {
        System.out.println("nothing to run yet: the end-to-end demo arrives with the relay and the worker");
    }
}
