// Package controller holds the Parent reconciler, as kubebuilder scaffolds
// one: it makes the Parent's Child (owned by it), records an Event and
// updates the Parent's status.
package controller

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	opsv1 "github.com/crdstore/crdstore/tools/operator/api/v1"
)

// ParentReconciler reconciles a Parent object.
type ParentReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	Identity string
}

// Reconcile makes the Parent's Child and reports it in the Parent's status.
func (r *ParentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var parent opsv1.Parent
	if err := r.Get(ctx, req.NamespacedName, &parent); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	child := &opsv1.Child{ObjectMeta: metav1.ObjectMeta{Name: parent.Name + "-child", Namespace: parent.Namespace}}
	result, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		child.Spec.Data = map[string]string{"message": parent.Spec.Message, "reconciler": r.Identity}
		return controllerutil.SetControllerReference(&parent, child, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if result == controllerutil.OperationResultCreated {
		r.Recorder.Eventf(&parent, "Normal", "ChildCreated", "created child %s", child.Name)
	}
	if parent.Status.ChildName != child.Name || !parent.Status.Ready {
		parent.Status.ChildName = child.Name
		parent.Status.Ready = true
		if err := r.Status().Update(ctx, &parent); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{Requeue: true}, nil
			}
			return ctrl.Result{}, err
		}
	}
	logger.Info("reconciled", "parent", req.NamespacedName, "child", child.Name)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler for Parents and the Children
// they own.
func (r *ParentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&opsv1.Parent{}).Owns(&opsv1.Child{}).Named("parent").Complete(r)
}
