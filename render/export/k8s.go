package export

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// GPUResource is the extended resource NVIDIA's device plugin offers.
const GPUResource corev1.ResourceName = "nvidia.com/gpu"

// KubeEscape writes s so that Kubernetes' $(VAR) expansion of command,
// args and env values gives s back: "$$" reduces to "$".
func KubeEscape(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// KubeObjects are c's Deployment, Service, and the claim for the model
// cache, which keeps the weights across restarts instead of downloading
// them again into an emptyDir each time.
func KubeObjects(c Config) (*appsv1.Deployment, *corev1.Service, *corev1.PersistentVolumeClaim) {
	name := DNSName(c.Name)
	labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": "servelab"}
	esc := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = KubeEscape(w)
		}
		return out
	}
	env := []corev1.EnvVar{}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		env = append(env, corev1.EnvVar{Name: k, Value: KubeEscape(c.Env[k])})
	}
	optional := true
	env = append(env, corev1.EnvVar{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "hf-token"}, Key: "token", Optional: &optional}}})
	gpus := *resource.NewQuantity(int64(c.GPUs), resource.DecimalSI)
	probe := func(period, failures int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: c.Health, Port: intstr.FromString("http")}},
			PeriodSeconds: period, FailureThreshold: failures, TimeoutSeconds: 5}
	}
	container := corev1.Container{
		Name: "engine", Image: c.Image, Command: esc(c.Argv[:1]), Args: esc(c.ServeArgv()[1:]), Env: env,
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{GPUResource: gpus},
			Requests: corev1.ResourceList{GPUResource: gpus},
		},
		// Loading weights and capturing CUDA graphs takes minutes: the
		// startup probe gives it 20, then readiness and liveness take over.
		StartupProbe:   probe(10, 120),
		ReadinessProbe: probe(5, 3),
		LivenessProbe:  probe(10, 6),
		VolumeMounts:   []corev1.VolumeMount{{Name: "shm", MountPath: "/dev/shm"}, {Name: "hf-cache", MountPath: CacheDir}},
	}
	replicas := int32(1)
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			// The cache's claim is ReadWriteOnce: an old pod must let go
			// of it before the new one starts, possibly on another node.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{container},
					// Engines share tensors between processes through
					// /dev/shm, which a pod otherwise caps at 64 MiB.
					Volumes: []corev1.Volume{
						{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
						{Name: "hf-cache", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: cacheClaim(name)}}},
					},
				},
			},
		},
	}
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{
			Name: "http", Port: Port, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}},
	}
	cache, err := resource.ParseQuantity(c.CacheSize)
	if err != nil {
		cache = resource.MustParse("200Gi")
	}
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: cacheClaim(name), Labels: labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: cache}},
		},
	}
	return d, svc, pvc
}

// cacheClaim is the model cache's claim name, within DNS's 63.
func cacheClaim(name string) string {
	return strings.TrimRight(name[:min(len(name), 63-len("-hf-cache"))], "-") + "-hf-cache"
}

var _ = register(Format{Name: "k8s", File: "k8s.yaml", Label: "Kubernetes", Rank: 3, Write: Kubernetes})

// Kubernetes is the model cache's claim, the Deployment and the Service
// as one YAML stream.
func Kubernetes(c Config) ([]byte, error) {
	d, svc, pvc := KubeObjects(c)
	var b bytes.Buffer
	b.WriteString(c.header())
	b.WriteString("# The model cache is a PersistentVolumeClaim of the cluster's default storage class;\n" +
		"# set storageClassName to choose another.\n")
	for i, obj := range []any{pvc, d, svc} {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}
