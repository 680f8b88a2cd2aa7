package dev.outbox.api;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.AnnotatedParameter;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;

/**
 * Reads JSpecify's nullness of a record's components: in a {@code @NullMarked} scope (the record, a
 * class around it, its package or its module), a component of a reference type without
 * {@code @Nullable} must be present in the JSON and must not be {@code null}; Jackson otherwise
 * passes {@code null} for it. A {@code @Nullable} component may be missing or null. Primitive
 * components are required everywhere, by {@code FAIL_ON_NULL_FOR_PRIMITIVES}.
 */
final class NullMarkedRecords extends NopAnnotationIntrospector {

    private static final long serialVersionUID = 1L;

    /** The Jackson module that puts this introspector before the others. */
    static Module module() {
        return new Module() {
            @Override
            public String getModuleName() {
                return "outbox-null-marked-records";
            }

            @Override
            public Version version() {
                return Version.unknownVersion();
            }

            @Override
            public void setupModule(SetupContext context) {
                context.insertAnnotationIntrospector(new NullMarkedRecords());
            }
        };
    }

    @Override
    public @Nullable Boolean hasRequiredMarker(AnnotatedMember m) {
        return isNonNullComponent(m) ? Boolean.TRUE : null;
    }

    @Override
    public JsonSetter.Value findSetterInfo(Annotated a) {
        return a instanceof AnnotatedMember m && isNonNullComponent(m)
                ? JsonSetter.Value.forValueNulls(Nulls.FAIL)
                : JsonSetter.Value.empty();
    }

    private static boolean isNonNullComponent(AnnotatedMember m) {
        if (!(m instanceof AnnotatedParameter p)
                || !p.getDeclaringClass().isRecord()
                || !(p.getOwner().getMember() instanceof Constructor<?> constructor)) {
            return false;
        }
        RecordComponent[] components = p.getDeclaringClass().getRecordComponents();
        if (constructor.getParameterCount() != components.length || p.getIndex() >= components.length) {
            return false;
        }
        for (int i = 0; i < components.length; i++) {
            if (constructor.getParameterTypes()[i] != components[i].getType()) {
                return false; // not the canonical constructor
            }
        }
        RecordComponent component = components[p.getIndex()];
        return !component.getType().isPrimitive()
                && !component.getAnnotatedType().isAnnotationPresent(Nullable.class)
                && isNullMarked(p.getDeclaringClass());
    }

    private static boolean isNullMarked(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
            if (c.isAnnotationPresent(NullUnmarked.class)) {
                return false;
            }
            if (c.isAnnotationPresent(NullMarked.class)) {
                return true;
            }
        }
        Package pkg = type.getPackage();
        if (pkg != null && pkg.isAnnotationPresent(NullUnmarked.class)) {
            return false;
        }
        return (pkg != null && pkg.isAnnotationPresent(NullMarked.class))
                || type.getModule().isAnnotationPresent(NullMarked.class);
    }
}
